"""The audit of summaries as players received them: every line of every summary block in a prompt
is a statement the log supports, read back from the prompt record and checked against the log.

A day line must be that day's engine line; a picked line must be a fact the log holds (a night's
death, a vote's result and ballots, a nomination, a claim), a quoted passage of words the named
player really said that day (each passage a piece of that speech as the transcript quotes it), an
accusation that player's speeches of those days made, or ballots that player cast. Anything else
in the block is a statement the log does not support.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from mafia.context.extraction import extract
from mafia.context.record import read_view
from mafia.context.safety import quote_text
from mafia.context.summary_items import ACCUSATION_ITEM_LINE, SPEECH_ITEM_LINE, Catalogue
from mafia.context.transcript import TranscriptManager
from mafia.context.transcript_text import PICKED_LABEL, compressed_round
from mafia.context.views import public_view
from mafia.game.events import EventBase
from mafia.prompts import anchors

_LABEL = re.compile(r"^Summary of Days 1-(?P<through>\d+), every line written by the engine")
_BALLOTS = re.compile(r"^- Ballots that changed: (?P<player>.+?) chose (?P<rest>.+)$")
_CAST = re.compile(r"(?P<target>[^,()]+?) \(Day (?P<day>\d+)(?P<revote> revote)?\)")


def summary_blocks(text: str) -> list[tuple[int, list[str]]]:
    """Every summary block of a prompt: the days it covers and its lines after the label."""
    blocks: list[tuple[int, list[str]]] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _LABEL.match(line)
        if m is None:
            continue
        body: list[str] = []
        for follow in lines[i + 1 :]:
            if not follow.strip():
                break
            body.append(follow)
        blocks.append((int(m["through"]), body))
    return blocks


def _passages(words: str) -> list[str]:
    return [p.strip() for p in words.split("...") if p.strip()]


def _line_fault(line: str, cat: Catalogue, day_lines: dict[int, str], picked: bool) -> str | None:
    if not picked:
        m = anchors.DAY_HEADER.match(line)
        if m is not None and day_lines.get(int(m["day"])) == line:
            return None
        return "a day line that is not the engine's"
    if line.removeprefix("- ") in cat.facts:
        return None
    m = SPEECH_ITEM_LINE.match(line)
    if m is not None:
        spoken = cat.said.get((int(m["day"]), m["speaker"]), [])
        quoted = [quote_text(s.text) for s in spoken]
        passages = _passages(m["words"])
        if passages and any(all(p in q for p in passages) for q in quoted):
            return None
        return "a quote that is not that player's words of that day"
    m = ACCUSATION_ITEM_LINE.match(line)
    if m is not None:
        for day in anchors.parse_numbers(m["days"]):
            said = cat.said.get((day, m["player"]), [])
            if not any(
                s.nomination == m["target"] or m["target"] in extract(s.text, m["player"], cat.seats).accused
                for s in said
            ):
                return "an accusation that player did not make"
        return None
    m = _BALLOTS.match(line)
    if m is not None:
        for cast in _CAST.finditer(m["rest"]):
            kind = "revote" if cast["revote"] else "vote"
            if (kind, cast["target"].strip()) not in cat.ballots.get((int(cast["day"]), m["player"]), []):
                return "a ballot that player did not cast"
        return None
    return "a line of no item's form"


def audit_summaries(events: Sequence[EventBase], records: Sequence[dict[str, Any]]) -> list[str]:
    """Every summary line in the players' prompts (not the summariser's) the log does not support."""
    entries = TranscriptManager.from_record(read_view(public_view(events), ""), day_open=False).entries
    problems: list[str] = []
    cats: dict[int, Catalogue] = {}
    for record in records:
        if record.get("action") == "summary":
            continue
        for through, body in summary_blocks(record["system"] + "\n" + record["user"]):
            cat = cats.setdefault(through, Catalogue.of(entries, through))
            day_lines = {e.number: compressed_round(e.summary())[0] for e in entries if e.number <= through}
            picked = False
            for line in body:
                if line == PICKED_LABEL:
                    picked = True
                    continue
                fault = _line_fault(line, cat, day_lines, picked)
                if fault is not None:
                    problems.append(f"{record['id']}: {fault}: {line[:100]!r}")
    return problems
