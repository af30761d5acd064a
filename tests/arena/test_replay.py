"""``mafia replay``: a run folder read back as the table saw it, with every private action, one
round at a time, as the exact prompts one seat received, or as an HTML page; and one-line errors
for bad arguments and missing or damaged folders."""

from __future__ import annotations

import re
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fakes import Ask, Recording
from logbuilder import seven_to_day2
from mafia.cli import app
from mafia.context.views import player_view, public_view
from mafia.game.events import (
    DefenseSpeech,
    EventBase,
    LastWords,
    MafiaDiscussion,
    NightResolution,
    Speech,
    Thought,
    VoteRound,
    from_jsonl,
    to_jsonl,
)
from mafia.game.rules import Role
from mafia.models.house import HouseModel
from mafia.play.runner import run_game
from mafia.replay.prompts import seat_calls
from mafia.replay.run_folder import load_run

runner = CliRunner()
WIDE = {"COLUMNS": "2000"}  # no wrapping, so texts can be found whole in the output


def replay(*args: str) -> Any:
    return runner.invoke(app, ["replay", *args], env=WIDE)


def _has_tie_on_day_two(folder: Path) -> bool:
    events = events_of(folder)
    revotes = [e for e in events if isinstance(e, VoteRound) and e.revote]
    return (
        any(isinstance(e, DefenseSpeech) for e in events)
        and any(isinstance(e, Speech) and e.round == 2 for e in events)
        and bool(revotes)
    )


# The seed the search below last found (24 games in): tried first, so the search runs only when
# the house model's games have moved.
FOUND_SEED = 31


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 7-seat house-model game with a tie, defenses, a revote and a second day:
    ``FOUND_SEED`` if it still has them, else the first seed from 8 on that has them (prompt
    changes move the house model's games)."""
    out = tmp_path_factory.mktemp("runs")
    for seed in dict.fromkeys([FOUND_SEED, *range(8, 100)]):
        run_game({"seed": seed, "players": 7}, model=HouseModel(seed=seed), out_dir=out)
        folder = out / f"game-7p-seed{seed}"
        if _has_tie_on_day_two(folder):
            return folder
    raise AssertionError("no seed from 8 to 99 gives a game with a tie, defenses and a second day")


def events_of(folder: Path) -> list[EventBase]:
    return from_jsonl((folder / "events.jsonl").read_text(encoding="utf-8"))


def secrets(events: list[EventBase]) -> list[str]:
    """Private texts (Mafia messages, thoughts) that no public words repeat."""
    said = [e.text for e in events if isinstance(e, Speech | DefenseSpeech | LastWords)]
    found = [e.message for e in events if isinstance(e, MafiaDiscussion)]
    found += [e.reasoning for e in events if isinstance(e, Thought)]
    return [s for s in found if s and not any(s in text for text in said)]


def test_the_public_view_shows_what_the_table_saw(game: Path) -> None:
    result = replay(str(game))
    assert result.exit_code == 0, result.output
    events = events_of(game)
    assert {type(e) for e in events} >= {DefenseSpeech, MafiaDiscussion, Thought}
    assert all(e.text in result.output for e in events if isinstance(e, Speech | DefenseSpeech))
    hidden = secrets(events)
    assert hidden and not any(s in result.output for s in hidden)
    assert "Revote" in result.output and "Game over" in result.output
    assert "(mafia" not in result.output and "(thought)" not in result.output


def test_view_all_adds_every_private_action_and_thought(game: Path) -> None:
    result = replay(str(game), "--view", "all")
    assert result.exit_code == 0, result.output
    for event in events_of(game):
        if isinstance(event, MafiaDiscussion):
            assert event.message in result.output
        if isinstance(event, Thought):
            assert event.reasoning in result.output
    assert "(doctor)" in result.output and "(detective)" in result.output


def test_day_shows_one_round(game: Path) -> None:
    result = replay(str(game), "--day", "2", "--view", "all")
    assert result.exit_code == 0, result.output
    events = events_of(game)
    speeches = [e for e in events if isinstance(e, Speech)]
    day_two = {e.text for e in speeches if e.round == 2}
    assert day_two and all(text in result.output for text in day_two)
    # The house model repeats stock lines; a line also written in round 2 is no evidence.
    round_two = " ".join(str(v) for e in events if e.round == 2 for v in e.model_dump().values())
    for event in speeches:
        if event.text not in round_two:
            assert event.text not in result.output, event
    assert "Day 2" in result.output and "Day 1" not in result.output and "Night 2" in result.output


def test_as_seat_prints_exactly_the_prompts_it_received(tmp_path: Path) -> None:
    """Player 2's first speech is rejected once, so its re-ask is rebuilt from the records."""

    def script(ask: Ask) -> dict[str, Any]:
        if ask.player == "Player 2" and ask.action == "speak" and not ask.retry:
            return {"choice": "Nobody"}
        return {}

    model = Recording(script=script)
    run_game({"seed": 3, "players": 5, "round_cap": 1}, model=model, out_dir=tmp_path)
    folder = tmp_path / "game-5p-seed3"
    roles = {"system": "system", "human": "user", "ai": "assistant"}
    sent = [
        [(roles[kind], text) for kind, text in zip(kinds, texts, strict=True)]
        for kinds, texts, _ in model.calls_seen
        if "You are Player 2." in texts[1]
    ]
    calls = seat_calls(load_run(folder).prompts(), "Player 2")
    assert [c.messages for c in calls] == sent
    assert any(len(messages) == 4 for messages in sent)  # the re-ask: prompt, answer, error

    result = replay(str(folder), "--as", "2")
    assert result.exit_code == 0, result.output
    position = 0
    for messages in sent:
        for _, text in messages[1:]:  # the system message is printed once, then said to be the same
            found = result.output.find(text, position)
            assert found >= 0, text[:200]
            position = found + len(text)
    assert result.output.count(sent[0][0][1]) == 1
    assert result.output.count("(the same system message as the call before)") == len(sent) - 1
    by_name = replay(str(folder), "--as", "player 2")
    assert by_name.exit_code == 0 and by_name.output == result.output
    assert "You are Player 1." not in result.output


def test_unfinished_last_line_is_left_out_with_a_note(game: Path, tmp_path: Path) -> None:
    stopped = tmp_path / "stopped"
    stopped.mkdir()
    lines = (game / "events.jsonl").read_text(encoding="utf-8").split("\n")
    cut = "\n".join(lines[:30]) + "\n" + lines[30][:25]  # a kill mid-write leaves half a line
    (stopped / "events.jsonl").write_text(cut, encoding="utf-8")
    result = replay(str(stopped))
    assert result.exit_code == 0, result.output
    assert "last line of events.jsonl is unfinished" in result.stderr
    assert "The game has not finished" in result.output


def test_player_text_is_shown_as_written(tmp_path: Path) -> None:
    """Words that look like terminal styles or HTML are shown, never read as either."""
    hostile = '[/] [bold red]x[/] </q></p><script>alert("x")</script> & <b>'
    log = seven_to_day2().speak("Player 2", hostile, "Player 1")
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "events.jsonl").write_text(to_jsonl(log.events), encoding="utf-8")
    shown = replay(str(folder))
    assert shown.exit_code == 0, shown.output
    assert hostile in shown.output
    page = tmp_path / "page.html"
    assert replay(str(folder), "--html", str(page)).exit_code == 0
    text = page.read_text(encoding="utf-8")
    assert text.count("<script>") == 1 and "<b>" not in text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;" in text


class Page(HTMLParser):
    """What the page is made of: tags with their attributes, and every text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.texts: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.texts.append(data)

    def having(self, tag: str, css: str) -> list[dict[str, str]]:
        return [a for t, a in self.tags if t == tag and css in a.get("class", "").split()]


def test_the_page_holds_the_game_and_loads_nothing(game: Path, tmp_path: Path) -> None:
    path = tmp_path / "replay.html"
    result = replay(str(game), "--html", str(path))
    assert result.exit_code == 0, result.output
    text = path.read_text(encoding="utf-8")
    page = Page(text)
    events = events_of(game)
    for tag, attrs in page.tags:  # self-contained: nothing is fetched
        assert "src" not in attrs and tag not in ("link", "iframe", "img"), (tag, attrs)
        assert attrs.get("href", "#").startswith("#"), attrs
    assert "url(" not in text and "@import" not in text
    sections = [a["id"] for t, a in page.tags if t == "section"]
    rounds = max(e.round for e in events)
    assert sections[:3] == ["night-0", "day-1", "night-1"] and sections[-1] == "game-over"
    assert {f"day-{n}" for n in range(1, rounds + 1)} <= set(sections)
    assert [a["href"] for a in page.having("a", "day") + page.having("a", "night")]  # the timeline
    assert len(page.having("p", "speech")) == sum(isinstance(e, Speech) for e in events)
    assert len(page.having("p", "defense")) == sum(isinstance(e, DefenseSpeech) for e in events)
    votes = [e for e in events if isinstance(e, VoteRound) and e.outcome != "no_vote"]
    assert len(page.having("table", "votes")) == len(votes) and any(v.revote for v in votes)
    nominations = [e.nomination for e in events if isinstance(e, Speech) and e.nomination]
    assert len(page.having("span", "nomination")) == len(nominations)
    private = [
        a for t, a in page.tags if "private" in a.get("class", "").split() and "badge" not in a["class"]
    ]
    outcomes = [e for e in events if isinstance(e, NightResolution) and (e.intended_kill or e.protected)]
    assert outcomes and len(private) == sum(1 for e in events if e.AUDIENCE is not None) + len(outcomes)
    assert page.having("input", "") == [] and any(a.get("id") == "show-private" for _, a in page.tags)
    hidden = secrets(events)
    assert hidden and all(escape(s) in text for s in hidden)

    public = tmp_path / "public.html"
    assert replay(str(game), "--html", str(public), "--view", "public").exit_code == 0
    public_text = public.read_text(encoding="utf-8")
    assert 'class="entry private' not in public_text and 'id="show-private"' not in public_text
    assert not any(escape(s) in public_text for s in hidden) and "Public view" in public_text


def test_a_page_is_replaced_but_nothing_else(game: Path, tmp_path: Path) -> None:
    path = tmp_path / "replay.html"
    assert replay(str(game), "--html", str(path)).exit_code == 0
    assert replay(str(game), "--html", str(path), "--day", "1").exit_code == 0
    assert "round 1" in path.read_text(encoding="utf-8")
    notes = tmp_path / "notes.html"
    notes.write_text("my notes", encoding="utf-8")
    result = replay(str(game), "--html", str(notes))
    assert result.exit_code == 2 and "is not a replay page" in result.stderr
    assert notes.read_text(encoding="utf-8") == "my notes"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.html", "replay.html"]


def _damage(folder: Path, name: str, line: int, text: str) -> None:
    path = folder / name
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[line] = text
    path.write_text("\n".join(lines), encoding="utf-8")


# (id, arguments after the run folder, change to a copy of the folder, pattern of the one line)
CASES: list[tuple[str, list[str], Any, str]] = [
    ("no-such-folder", [], lambda f: _rename(f), r"no such run folder"),
    ("a-file", [], lambda f: _to_file(f), r"not a folder"),
    ("no-events", [], lambda f: (f / "events.jsonl").unlink(), r"no events\.jsonl"),
    ("empty-events", [], lambda f: (f / "events.jsonl").write_text(""), r"holds no events"),
    ("not-json", [], lambda f: _damage(f, "events.jsonl", 5, "{oops"), r"events\.jsonl line 6: not JSON"),
    (
        "not-an-event",
        [],
        lambda f: _damage(f, "events.jsonl", 7, '{"type":"dance"}'),
        r"line 8: not a game event",
    ),
    ("not-an-object", [], lambda f: _damage(f, "events.jsonl", 2, "[1]"), r"line 3: not a game event"),
    (
        "no-start",
        [],
        lambda f: _damage(f, "events.jsonl", 0, '{"type":"elimination","round":1,"player":"A"}'),
        r"does not open with the game's start",
    ),
    ("day-too-late", ["--day", "99"], None, r"--day 99: this game has rounds 0-\d+"),
    ("day-negative", ["--day", "-1"], None, r"--day -1: this game has rounds"),
    ("day-not-a-number", ["--day", "two"], None, r"'--day'.*valid integer"),
    ("no-such-seat", ["--as", "8"], None, r"--as '8': names no seat; use a seat number 1-7"),
    ("no-such-name", ["--as", "Zed"], None, r"--as 'Zed': names no seat"),
    ("as-with-view", ["--as", "1", "--view", "all"], None, r"--as shows one seat's prompts"),
    ("as-with-html", ["--as", "1", "--html", "x.html"], None, r"--as shows one seat's prompts"),
    ("bad-view", ["--view", "mafia"], None, r"'--view'.*'public', 'all'"),
    ("no-prompts", ["--as", "1"], lambda f: (f / "prompts.jsonl").unlink(), r"no prompts\.jsonl"),
    (
        "bad-prompts",
        ["--as", "1"],
        lambda f: _damage(f, "prompts.jsonl", 1, '{"x":1}'),
        r"prompts\.jsonl line 2: not a prompt record",
    ),
    ("html-a-folder", ["--html", "{tmp}"], None, r"--html .*: is a folder"),
    ("html-no-parent", ["--html", "{tmp}/no/such/page.html"], None, r"--html .*: cannot be written"),
]


def _rename(folder: Path) -> None:
    folder.rename(folder.with_name("elsewhere"))


def _to_file(folder: Path) -> None:
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    folder.write_text("not a run")


@pytest.mark.parametrize(("args", "change", "pattern"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_arguments_and_damaged_folders_are_one_line_and_exit_code_2(
    game: Path, tmp_path: Path, args: list[str], change: Any, pattern: str
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    for path in game.iterdir():
        if path.is_file():
            (folder / path.name).write_bytes(path.read_bytes())
    if change is not None:
        change(folder)
    before = _contents(tmp_path)
    result = replay(str(folder), *[a.replace("{tmp}", str(tmp_path)) for a in args])
    lines = result.stderr.splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert re.search(pattern, lines[0]), lines[0]
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    assert _contents(tmp_path) == before  # nothing written, nothing changed


def _contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_public_view_is_a_town_players_without_their_own_notes() -> None:
    log = seven_to_day2()
    town = next(p for p, role in log.role_of.items() if role is Role.TOWN)
    seen = player_view(log.events, town)
    assert any(e.AUDIENCE is not None for e in seen)  # their role and thoughts
    assert public_view(log.events) == [e for e in seen if e.AUDIENCE is None]
    nights = [e for e in public_view(log.events) if isinstance(e, NightResolution)]
    assert nights and all(e.intended_kill is None and e.protected is None for e in nights)
