// The switch: shows or hides every private entry (night actions, thoughts, roles) at once.
(function () {
  var box = document.getElementById("show-private");
  if (!box) { return; }
  function apply() { document.body.classList.toggle("show-private", box.checked); }
  box.addEventListener("change", apply);
  apply();
})();

// The playback: the page opens on the whole game; playing or stepping shows it event by event
// (each event is one .step, in the log's order). While private entries are hidden, the steps
// seen only by some players are passed over. Keys: Space plays or pauses, the arrows step,
// Home goes to the first event, End shows the whole game, [ and ] change the speed.
(function () {
  var steps = Array.prototype.slice.call(document.querySelectorAll(".step"));
  var sections = Array.prototype.slice.call(document.querySelectorAll("main section"));
  var speed = document.getElementById("pb-speed");
  var where = document.getElementById("pb-where");
  var play = document.getElementById("pb-play");
  var at = -1;  // the index in shown() of the last event revealed; -1 with the whole game shown
  var timer = null;

  function privateShown() { return document.body.classList.contains("show-private"); }
  function shown() {
    return steps.filter(function (s) { return privateShown() || !s.classList.contains("private-step"); });
  }
  function playing() { return at >= 0; }

  function draw() {
    var list = shown();
    var revealed = playing() ? list.slice(0, at + 1) : steps;
    steps.forEach(function (s) { s.classList.remove("reached", "current"); });
    revealed.forEach(function (s) { s.classList.add("reached"); });
    sections.forEach(function (section) {
      section.classList.toggle("reached", !playing() || section.querySelector(".step.reached") !== null);
    });
    document.body.classList.toggle("playback-on", playing());
    document.body.dataset.step = playing() ? String(at + 1) : "";
    if (playing()) {
      var current = list[at];
      current.classList.add("current");
      current.scrollIntoView({block: "nearest"});
      where.textContent = "Event " + (at + 1) + " of " + list.length;
    } else {
      where.textContent = "Whole game (" + list.length + " events)";
    }
    play.innerHTML = timer === null ? "&#9654; Play" : "&#10074;&#10074; Pause";
    play.setAttribute("aria-pressed", timer === null ? "false" : "true");
  }

  function go(index) {
    var last = shown().length - 1;
    at = Math.max(0, Math.min(index, last));
    if (at === last) { stop(); }
    draw();
  }
  function forward() { go(playing() ? at + 1 : 0); }
  function back() { go(playing() ? at - 1 : shown().length - 2); }
  function whole() { stop(); at = -1; draw(); }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
  }
  function start() {
    stop();
    if (!playing() || at >= shown().length - 1) { at = -1; forward(); }
    timer = setInterval(forward, 1000 / Number(speed.value));
    draw();
  }
  function toggle() { if (timer === null) { start(); } else { stop(); draw(); } }
  function faster(by) {
    speed.selectedIndex = Math.max(0, Math.min(speed.options.length - 1, speed.selectedIndex + by));
    if (timer !== null) { start(); }
  }

  document.getElementById("pb-start").addEventListener("click", function () { go(0); });
  document.getElementById("pb-back").addEventListener("click", back);
  play.addEventListener("click", toggle);
  document.getElementById("pb-next").addEventListener("click", forward);
  document.getElementById("pb-end").addEventListener("click", whole);
  speed.addEventListener("change", function () { if (timer !== null) { start(); } });

  var box = document.getElementById("show-private");
  if (box) {
    // The current event stays the one shown; it is kept in place across the switch.
    box.addEventListener("change", function () {
      if (!playing()) { draw(); return; }
      var current = steps.indexOf(shown()[at]);
      var list = shown();
      var kept = list.filter(function (s) { return steps.indexOf(s) <= current; }).length - 1;
      at = Math.max(0, kept);
      draw();
    });
  }

  var keys = {
    " ": toggle,
    "ArrowRight": forward,
    "ArrowLeft": back,
    "Home": function () { go(0); },
    "End": whole,
    "]": function () { faster(1); },
    "[": function () { faster(-1); }
  };
  document.addEventListener("keydown", function (event) {
    var action = keys[event.key];
    var target = event.target || {};
    var typing = target.tagName === "SELECT" || (target.tagName === "INPUT" && target.type !== "checkbox");
    if (!action || typing || event.ctrlKey || event.metaKey || event.altKey) { return; }
    event.preventDefault();
    action();
  });
  draw();
})();
