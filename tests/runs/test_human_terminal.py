"""``mafia play --human N`` in a real terminal (pexpect): a person plays a seat to the end of the
game, re-asked on input it cannot take; Ctrl-C and the end of input at a prompt stop the game with
the resume hint, and ``mafia resume`` goes on with the person at the same seat."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path

import pexpect
import pytest

MAFIA = str(Path(sys.executable).parent / "mafia")
# Every prompt the terminal seat writes, and the end of the game.
PROMPTS: tuple[str | type[pexpect.EOF], ...] = (
    r"Your (speech|defense|last words|plan for the Mafia|message to your partners):",
    r"Your choice \(number or name(; Enter for no one)?\):",
    r"Claim a role",
    r"is not an option",
    pexpect.EOF,
)
# A bound on a game that is never reached by a working one (a hung game fails here, not forever).
EXPECT_BOUND = 120


def spawn(args: list[str], tmp_path: Path) -> pexpect.spawn:
    env = {**os.environ, "LANGSMITH_TRACING": "false", "NO_COLOR": "1", "COLUMNS": "120", "TERM": "dumb"}
    child = pexpect.spawn(MAFIA, args, cwd=str(tmp_path), env=env, encoding="utf-8", timeout=EXPECT_BOUND)
    child.logfile_read = io.StringIO()  # the whole screen, for the assertions
    return child


def screen(child: pexpect.spawn) -> str:
    """Everything the child wrote to the terminal so far (``spawn`` keeps it)."""
    log = child.logfile_read
    assert isinstance(log, io.StringIO)
    return log.getvalue()


def play_on(child: pexpect.spawn, turns: list[str], stop_after: int | None = None) -> None:
    """Answer every prompt until the game ends (or until ``stop_after`` prompts): a speech, the
    second option of a choice (after one answer it cannot take), no claim."""
    while True:
        index = child.expect([*PROMPTS])
        if index == len(PROMPTS) - 1:
            return
        if stop_after is not None and len(turns) >= stop_after:
            return
        prompt = child.after
        assert isinstance(prompt, str)  # a prompt's text: the game has not ended
        turns.append(prompt)
        if index == 0:
            child.sendline("I have watched the table closely and I trust my read.")
        elif index == 1:
            wrong = sum(1 for t in turns if t.startswith("Your choice")) == 1
            child.sendline("nobody at all" if wrong else "2")
        elif index == 2:
            child.sendline("")
        # index 3: the error line; the prompt that follows it is answered on the next pass


def check_played_to_the_end(child: pexpect.spawn, turns: list[str], run: Path) -> None:
    """A person's seat played to the end: one rejected answer re-asked, the person's speeches in
    the log, the seat recorded as a person's, one prompt record a turn and no fallback."""
    assert child.exitstatus == 0, screen(child)
    rejected = sum(1 for t in turns if "is not an option" in t)
    assert rejected == 1, turns
    assert any(t.startswith("Your speech") for t in turns) and any(t.startswith("Your choice") for t in turns)
    assert json.loads((run / "run.json").read_text())["seat_models"] == {"2": "human"}
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    assert events[-1]["type"] == "game_over"
    speeches = [e for e in events if e["type"] == "speech" and e["speaker"] == "Player 2"]
    assert speeches and all(s["text"].startswith("I have watched the table") for s in speeches)
    records = [json.loads(line) for line in (run / "prompts.jsonl").read_text().splitlines()]
    mine = [r for r in records if r["seat"] == 2]
    assert len(mine) == screen(child).count("Your turn, Player 2")  # one record a turn
    assert all(r["fallback"] is False and r["billed_tokens"] == 0 for r in mine)


@pytest.mark.slow
def test_a_person_plays_to_the_end_and_ctrl_c_or_end_of_input_stop_and_resume_alike(tmp_path: Path) -> None:
    """A person plays a seat straight to the end; the same game stopped twice at the person's
    prompt and resumed ends with logs byte-identical to it."""
    straight = spawn(["play", "--seed", "4", "--players", "5", "--human", "2", "--out", "straight"], tmp_path)
    turns: list[str] = []
    play_on(straight, turns)
    straight.close()
    check_played_to_the_end(straight, turns, tmp_path / "straight" / "game-5p-seed4")
    child = spawn(["play", "--seed", "4", "--players", "5", "--human", "2", "--out", "runs"], tmp_path)
    play_on(child, [], stop_after=1)
    child.sendintr()
    child.expect(r"stopped\.")
    child.expect(r"Go on with: (\S*mafia resume game-5p-seed4 [^\r\n]*)")
    found = child.match
    assert isinstance(found, re.Match)
    hint = found.group(1)
    assert hint.split()[0] == MAFIA  # the command as it was started, so it runs as printed
    child.expect(pexpect.EOF)
    child.close()
    assert (child.exitstatus, child.signalstatus) == (130, None)

    resumed = spawn(hint.split()[1:], tmp_path)
    play_on(resumed, [], stop_after=1)
    resumed.sendeof()
    resumed.expect(r"stopped: the input ended\.")
    resumed.expect(pexpect.EOF)
    resumed.close()
    assert resumed.exitstatus == 130

    final = spawn(hint.split()[1:], tmp_path)
    play_on(final, [])
    final.close()
    assert final.exitstatus == 0, final.before
    for log in ("events.jsonl", "prompts.jsonl"):
        stopped = (tmp_path / "runs" / "game-5p-seed4" / log).read_bytes()
        assert stopped == (tmp_path / "straight" / "game-5p-seed4" / log).read_bytes(), log
