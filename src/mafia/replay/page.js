// The switch: shows or hides every private entry (night actions, thoughts, roles) at once.
(function () {
  var box = document.getElementById("show-private");
  if (!box) { return; }
  function apply() { document.body.classList.toggle("show-private", box.checked); }
  box.addEventListener("change", apply);
  apply();
})();
