"""Accusation and role-claim extraction, measured on hand-labelled sets of varied speeches.

tests/data/extraction_labels.jsonl holds one speech a line: speaker, text, the players it accuses
and the roles its speaker claims (labelled by hand, including negations such as "I am not the
Doctor", hedged accusations, reported speech and implicit claims such as "I investigated X").
claims_tune.jsonl and claims_heldout.jsonl, in the same format, were written in other styles (long
and hedged, curly quotes, past tense, fragments, seat numbers, Markdown, structured "Claim: Doctor"
lines, confessions) without sight of the extractor's word lists, in batches by separate writers;
the extractor was tuned on the first only, and the second is scored, never tuned on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mafia.context.extraction import claimed_role, extract
from mafia.game.rules import Role
from repo import DATA

LABELS = DATA / "extraction_labels.jsonl"
TUNE = DATA / "claims_tune.jsonl"
HELDOUT = DATA / "claims_heldout.jsonl"
DEFAULT_PLAYERS = [f"Player {k}" for k in range(1, 9)]


def _rows(path: Path = LABELS) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _scores(kind: str, path: Path = LABELS, newest: int | None = None) -> tuple[float, float, int]:
    """Precision, recall and labels of ``kind`` over a labelled file (its last ``newest`` rows only:
    rows are appended, so those are the speeches added last)."""
    tp = fp = fn = 0
    rows = _rows(path)
    for row in rows[-newest:] if newest else rows:
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


def test_other_styles_set_is_large_and_split() -> None:
    tune, heldout = _rows(TUNE), _rows(HELDOUT)
    assert len(tune) + len(heldout) >= 200 and len(heldout) >= 100
    assert sum(1 for r in heldout if r["claims"]) >= 40
    assert not {str(r["text"]) for r in tune} & {str(r["text"]) for r in heldout}


@pytest.mark.parametrize(
    ("path", "newest"), [(TUNE, None), (HELDOUT, None), (HELDOUT, 140)], ids=["tune", "heldout", "newest140"]
)
def test_claims_in_other_styles(path: Path, newest: int | None, capsys: pytest.CaptureFixture[str]) -> None:
    """Claims hold up on speeches unlike the house model's (the held-back file's newest 140 were
    added after the last tuning); accusations are reported alongside. README quotes these lines."""
    precision, recall, support = _scores("claims", path, newest)
    acc_precision, acc_recall, acc_support = _scores("accusations", path, newest)
    name = f"{path.stem}_newest{newest}" if newest else path.stem
    with capsys.disabled():
        print(
            f"\n{name}: claims precision={precision:.3f} recall={recall:.3f} (labels: {support});"
            f" accusations precision={acc_precision:.3f} recall={acc_recall:.3f} (labels: {acc_support})"
        )
    assert precision >= 0.9
    assert recall >= 0.8


def test_seat_numbers_name_players() -> None:
    players = [f"Player {k}" for k in range(1, 9)]
    assert extract("p6 is scum.", "Player 1", players).accused == ("Player 6",)
    assert extract("p6 is scum.", "Player 1", [*players[:5], "p6"]).accused == ("p6",)


@pytest.mark.parametrize(
    ("value", "role"),
    [
        ("Doctor", Role.DOCTOR),
        ("the doc", Role.DOCTOR),
        ("COP", Role.DETECTIVE),
        ("Townie", Role.TOWN),
        ("I am the Detective", Role.DETECTIVE),
        ("mafia", Role.MAFIA),
        (Role.TOWN, Role.TOWN),
        ("none", None),
        ("", None),
        ("Jester", None),
        ("Doctor or Town", None),
        (None, None),
        (3, None),
    ],
)
def test_claimed_role_reads_a_structured_claim(value: object, role: Role | None) -> None:
    assert claimed_role(value) is role


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
        ("For the record, I was the Doctor.", [Role.DOCTOR]),
        ("I was Town.", [Role.TOWN]),
        ("I’ve been the cop all along.", [Role.DETECTIVE]),
        ("Detective here, again.", [Role.DETECTIVE]),
        ("Just town.", [Role.TOWN]),
        ("Protected Player 2 both nights as Doctor.", [Role.DOCTOR]),
        ("Medic claim. Saved 2 on night one.", [Role.DOCTOR]),
        ("Player 1 is a humble villager.", [Role.TOWN]),
        ("I wasn't the Doctor.", []),
        ("They said I was the Doctor.", []),
        ("Oh sure, I'm the Mafia.", []),
        ("The Mafia here are clever.", []),
        ("Mafia.", []),
        ("Player 2 was the Doctor.", []),
        ("Player 2 keeps saying \u201cI\u2019m the doc, trust me\u201d.", []),
        ('I said "I am the Doctor" yesterday.', [Role.DOCTOR]),
        ("Player 2 said, 'I'm the Doctor, I saved Player 3.' I believe him.", []),
        ("I'm the 'Doctor' you all doubted.", [Role.DOCTOR]),
        ("**Claim: Doctor.** Vote: Player 2.", [Role.DOCTOR]),
        ("Alignment: Mafia. I concede.", [Role.MAFIA]),
        ("I lied. I'm not the Detective \u2014 I'm just town.", [Role.TOWN]),
        ("Player 2 is not the Doctor. I am.", [Role.DOCTOR]),
        ("Player 2 asked if I'm the cop. No comment.", []),
        ("Everyone keeps saying I'm the cop. I never said that.", []),
        ("I'm a doctor in real life, but in this game I'm just a townie.", [Role.TOWN]),
        ("You got me. Mafia.", [Role.MAFIA]),
        ("I'm the mafia, ok??", [Role.MAFIA]),
        ("My saves: N1 self, N2 Player 2.", [Role.DOCTOR]),
        ("Night 1 I looked at Player 2: innocent.", [Role.DETECTIVE]),
        ("I looked at Player 2's votes again.", []),
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
