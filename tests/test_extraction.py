"""Accusation and role-claim extraction, measured on a hand-labelled set of varied speeches.

tests/data/extraction_labels.jsonl holds one speech a line: speaker, text, the players it accuses
and the roles its speaker claims (labelled by hand, including negations such as "I am not the
Doctor", hedged accusations, reported speech and implicit claims such as "I investigated X").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mafia.context.extraction import extract
from mafia.rules import Role

LABELS = Path(__file__).parent / "data" / "extraction_labels.jsonl"
DEFAULT_PLAYERS = [f"Player {k}" for k in range(1, 9)]


def _rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line]


def _scores(kind: str) -> tuple[float, float, int]:
    tp = fp = fn = 0
    for row in _rows():
        players = row.get("players", DEFAULT_PLAYERS)
        assert isinstance(players, list)
        found = extract(str(row["text"]), str(row["speaker"]), players)
        got = set(found.accused) if kind == "accusations" else {r.value for r in found.claims}
        gold = set(row[kind])  # type: ignore[call-overload]
        tp += len(got & gold)
        fp += len(got - gold)
        fn += len(gold - got)
    return tp / (tp + fp), tp / (tp + fn), tp + fn


def test_label_set_is_large_and_varied() -> None:
    rows = _rows()
    assert len(rows) >= 60
    texts = [str(r["text"]) for r in rows]
    assert any("not the Doctor" in t for t in texts)
    assert any("might" in t or "seems a bit" in t for t in texts)
    assert sum(1 for r in rows if r["accusations"]) >= 30
    assert sum(1 for r in rows if r["claims"]) >= 15
    assert sum(1 for r in rows if not r["accusations"] and not r["claims"]) >= 10


@pytest.mark.parametrize("kind", ["accusations", "claims"])
def test_precision_and_recall(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    precision, recall, support = _scores(kind)
    with capsys.disabled():
        print(f"\n{kind}: precision={precision:.3f} recall={recall:.3f} (labels: {support})")
    assert precision >= 0.9
    assert recall >= 0.8


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("I am not the Doctor.", []),
        ("I'm not the Detective, just a regular town member.", [Role.TOWN]),
        ("If I were the Detective I would say so.", []),
        ("Am I the Doctor? Maybe.", []),
        ("I never said I protected Player 2.", []),
        ("As the Detective, I checked Player 2.", [Role.DETECTIVE]),
        ("I protected Player 2 last night.", [Role.DOCTOR]),
        ("Player 2 claims to be the Doctor.", []),
    ],
)
def test_claims(text: str, claims: list[Role]) -> None:
    players = ["Player 1", "Player 2", "Player 3"]
    assert list(extract(text, "Player 1", players).claims) == claims


@pytest.mark.parametrize(
    ("text", "accused"),
    [
        ("Player 2 is Mafia.", ["Player 2"]),
        ("Player 2 is not Mafia.", []),
        ("I don't think Player 2 or Player 3 are Mafia.", []),
        ("Player 2 might be a little suspicious.", ["Player 2"]),
        ("Player 2 accused Player 3, but I trust Player 3.", []),
        ("Don't vote Player 2.", []),
        ("Vote Player 3.", ["Player 3"]),
        ("I am Player 1 and I am not Mafia.", []),
    ],
)
def test_accusations(text: str, accused: list[str]) -> None:
    players = ["Player 1", "Player 2", "Player 3"]
    assert list(extract(text, "Player 1", players).accused) == accused


def test_names_are_matched_whole() -> None:
    players = [f"Player {k}" for k in range(1, 13)]
    assert extract("Player 12 is Mafia.", "Player 3", players).accused == ("Player 12",)
    assert extract("Player 1 is Mafia.", "Player 3", players).accused == ("Player 1",)


@pytest.mark.parametrize(
    ("text", "accused", "claims"),
    [
        ("Don't vote Player 2.", [], []),
        ("I'm the Doctor.", [], [Role.DOCTOR]),
        ("I'm just a townie, Player 3 is suspicious.", ["Player 3"], [Role.TOWN]),
        ("I've checked Player 5: Mafia.", [], [Role.DETECTIVE]),
        ("I won't vote Player 4, I'm the Detective.", [], [Role.DETECTIVE]),
        ("I don't think Player 4, Player 5 or Player 6 are suspicious.", [], []),
        ("I don't believe the case, Player 4 is lying.", [], []),
        ("I didn't say I'm the Doctor.", [], []),
        ("Player 2 isn't suspicious, but I can't trust Player 6.", ["Player 6"], []),
    ],
)
def test_curly_apostrophes_read_like_ascii(text: str, accused: list[str], claims: list[Role]) -> None:
    """A typographic apostrophe (’) reads exactly like "'" in negations, claims and pushes."""
    players = [f"Player {k}" for k in range(1, 9)]
    ascii_reading = extract(text, "Player 1", players)
    curly_reading = extract(text.replace("'", "\u2019"), "Player 1", players)
    assert list(ascii_reading.accused) == accused and list(ascii_reading.claims) == claims
    assert curly_reading == ascii_reading
