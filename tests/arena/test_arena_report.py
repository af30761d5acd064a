"""An arena folder of house-model games read back: the summary, the judge (shown failing a policy
that loses facts and one that bills more), the report with its plots, and bad folders refused."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena_logs import play_arena
from fakes import Ask, ScriptedModel
from mafia.arena.calls import rejections, steps
from mafia.arena.logs import ArenaError, load_arena, read_events, read_prompts
from mafia.arena.metrics import summarize
from mafia.arena.reads import grounding_slips
from mafia.arena.report import write_report
from mafia.arena.seat_play import METRICS, seat_tallies
from mafia.models.house import HouseModel
from mafia.play.runner import run_game

JSON = dict[str, Any]
SEEDS = (1, 2, 3)


def _copy(
    arena: Path, source: str, target: str, seeds: tuple[int, ...], change: Callable[[JSON], JSON]
) -> None:
    """Games of ``source`` again as policy ``target``, each prompt record passed through ``change``."""
    for seed in seeds:
        origin = arena / "games" / source / "house" / f"seed-{seed}"
        folder = arena / "games" / target / "house" / f"seed-{seed}"
        shutil.copytree(origin, folder)
        lines = (origin / "prompts.jsonl").read_text(encoding="utf-8").splitlines()
        records = [change(json.loads(line)) for line in lines]
        (folder / "prompts.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
        )


def _forget_votes(r: JSON) -> JSON:
    return {**r, "user": "\n".join(x for x in r["user"].split("\n") if not x.startswith("Votes: "))}


def _billing(factor: float) -> Callable[[JSON], JSON]:
    def bill(r: JSON) -> JSON:
        attempts = [{**a, "billed_tokens": a["billed_tokens"] * factor} for a in r["attempts"]]
        return {**r, "attempts": attempts}

    return bill


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two policies on three paired seeds; copies of them that forget every ballot line (two
    seeds), bill half, or bill double; and a game without a result."""
    root = play_arena(tmp_path_factory.mktemp("arena"), SEEDS)
    _copy(root, "full-history", "forgetful", (1, 2), _forget_votes)
    _copy(root, "full-history", "lean", SEEDS, _billing(0.5))
    _copy(root, "seed-window", "pricey", SEEDS, _billing(3.0))
    unfinished = root / "games" / "seed-window" / "house" / "seed-9"
    shutil.copytree(root / "games" / "seed-window" / "house" / "seed-1", unfinished)
    (unfinished / "result.json").unlink()
    return root


@pytest.fixture(scope="module")
def summary(arena: Path) -> JSON:
    return summarize(arena)


def _lines(path: Path) -> list[JSON]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_the_summary_counts_finished_games_per_policy_and_model(arena: Path, summary: JSON) -> None:
    assert json.loads(json.dumps(summary)) == summary  # JSON-ready: no tuples, no NaN
    assert summary["finished"] == 3 + 3 + 2 + 3 + 3
    assert summary["unfinished"] == ["games/seed-window/house/seed-9"]
    assert summary["arena"]["seeds"] == list(SEEDS)
    group = summary["groups"]["seed-window"]["house"]
    assert group["games"] == 3 and group["seeds"] == list(SEEDS)
    folders = [arena / "games" / "seed-window" / "house" / f"seed-{s}" for s in SEEDS]
    over = [next(e for e in _lines(f / "events.jsonl") if e["type"] == "game_over") for f in folders]
    for side in ("town", "mafia", "draw"):
        assert group["wins"][side]["wins"] == sum(1 for e in over if e["winner"] == side)
    assert group["rounds"]["n"] == 3 and group["rounds"]["mean"] == sum(e["round"] for e in over) / 3
    calls = [sum(len(r["attempts"]) for r in _lines(f / "prompts.jsonl")) for f in folders]
    assert group["calls_per_game"]["mean"] == sum(calls) / 3
    assert group["billed_tokens"] == sum(
        r["billed_tokens"] for f in folders for r in _lines(f / "prompts.jsonl")
    )


def test_judged_play_per_policy_and_model_adds_up_its_games_seats(arena: Path, summary: JSON) -> None:
    """An arena's judged figures over all seats are the ratio of its games' summed seat tallies."""
    folders = [arena / "games" / "seed-window" / "house" / f"seed-{s}" for s in SEEDS]
    tallies = [
        seat_tallies(read_events(f / "events.jsonl"), read_prompts(f / "prompts.jsonl")) for f in folders
    ]
    group = summary["groups"]["seed-window"]["house"]["judged"]
    for key in ("brier", "influence", "survival"):
        num = sum(t[key][0] for game in tallies for t in game.values() if key in t)
        den = sum(t[key][1] for game in tallies for t in game.values() if key in t)
        figure = group[key]["all"]
        assert figure["n"] == den and figure["value"] == pytest.approx(num / den)
        assert figure["low"] <= figure["value"] <= figure["high"]
    assert group["fake_claims_believed"]["Town"] is None  # a Mafia-side metric has no Town seat


def test_games_of_the_engine_keep_every_fact_and_place_every_turn(summary: JSON) -> None:
    for policy in ("full-history", "seed-window"):
        facts = summary["groups"][policy]["house"]["fact_presence"]
        assert facts["unplaced"] == 0 and facts["due"] > 0 and facts["share"] == 1.0
        assert max(int(age) for age in facts["by_age"]) >= 2
        deduction = summary["groups"][policy]["house"]["deduction"]
        assert deduction["brier"] is not None and deduction["coverage"] == 1.0


def test_the_judge_passes_a_cheaper_faithful_policy_and_fails_the_others(summary: JSON) -> None:
    verdicts = {v["policy"]: v for v in summary["judge"]["verdicts"]}
    assert set(verdicts) == {"forgetful", "lean", "pricey", "seed-window"}
    lean, forgetful, pricey = verdicts["lean"], verdicts["forgetful"], verdicts["pricey"]
    assert lean["passed"] and lean["paired_seeds"] == 3
    assert lean["billed_tokens"] == pytest.approx(lean["baseline_billed_tokens"] / 2)
    assert not forgetful["passed"] and forgetful["paired_seeds"] == 2
    assert forgetful["fact_presence"] < forgetful["baseline_fact_presence"] - 0.02
    assert "more than 2 points" in forgetful["reason"]
    assert not pricey["passed"] and pricey["fact_presence"] == 1.0
    assert pricey["reason"].endswith("bills no fewer tokens")
    window = verdicts["seed-window"]
    cheaper = window["billed_tokens"] < window["baseline_billed_tokens"]
    assert window["passed"] == cheaper


def _edit_events(folder: Path, kind: str, field: str) -> None:
    """The game's first event of ``kind`` with ``field`` reworded."""
    path = folder / "events.jsonl"
    events = _lines(path)
    first = next(e for e in events if e["type"] == kind)
    first[field] = f"{first[field]} Reworded."
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")


def test_paired_games_count_the_seeds_played_move_for_move_alike(arena: Path, tmp_path: Path) -> None:
    """A copy of the baseline's games with one speech reworded (seed 1) and one thought reworded
    (seed 2): two of three seeds made the same moves, and all three ended alike; the report says so."""
    root = tmp_path / "arena"
    shutil.copytree(arena, root)
    _copy(root, "full-history", "moved", SEEDS, lambda r: r)
    _edit_events(root / "games" / "moved" / "house" / "seed-1", "speech", "text")
    _edit_events(root / "games" / "moved" / "house" / "seed-2", "thought", "reasoning")
    verdicts = {v["policy"]: v for v in summarize(root)["judge"]["verdicts"]}
    moved, lean = verdicts["moved"], verdicts["lean"]
    assert (moved["same_play_seeds"], moved["same_winner_seeds"]) == (2, 3)
    assert (lean["same_play_seeds"], lean["same_winner_seeds"]) == (3, 3)  # its events are the baseline's
    text = write_report(root, tmp_path / "out", echo=lambda _: None).read_text(encoding="utf-8")
    assert "| moved / house | 3 | 2 | 3 |" in text.split("## Paired games", 1)[1]


def test_the_report_has_its_plots_and_prints_the_verdict(arena: Path, tmp_path: Path) -> None:
    printed: list[str] = []
    page = write_report(arena, tmp_path / "out", echo=printed.append)
    assert page == tmp_path / "out" / "report.md"
    text = page.read_text(encoding="utf-8")
    images = re.findall(r"!\[[^]]*\]\(([^)]+)\)", text)
    assert len(images) == 5
    for name in images:
        assert (page.parent / name).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert any(line.startswith("Judge: lean / house: PASS") for line in printed)
    assert any(line.startswith("Judge: forgetful / house: FAIL") for line in printed)
    assert "## Fact presence by age" in text and "| forgetful / house |" in text
    assert "games/seed-window/house/seed-9" in text
    judged = text.split("## How they play", 1)[1]
    for metric in METRICS:  # a row and a one-line definition of every judged metric
        assert f"| {metric.title} |" in judged and f"- {metric.title}: {metric.definition}" in judged
    (tmp_path / "file").write_text("kept", encoding="utf-8")
    with pytest.raises(ArenaError, match="the report cannot be written there"):
        write_report(arena, tmp_path / "file" / "out", echo=printed.append)
    assert (tmp_path / "file").read_text(encoding="utf-8") == "kept"
    default = write_report(arena, echo=printed.append)
    assert default == arena / "report" / "report.md" and default.exists()


def _play_logging_steps(seed: int) -> tuple[list[JSON], list[list[str]]]:
    """A game's prompt records, and their ids grouped by the step that logged them: a step's
    records are logged together, before its events, so a record after an event opens a step."""
    records: list[JSON] = []
    taken: list[list[str]] = []
    fresh = [True]

    def on_prompt(record: JSON) -> None:
        records.append(record)
        if fresh[0]:
            taken.append([])
        taken[-1].append(record["id"])
        fresh[0] = False

    def on_event(_: object) -> None:
        fresh[0] = True

    run_game(
        {"seed": seed, "players": 9}, model=HouseModel(seed=seed), on_prompt=on_prompt, on_event=on_event
    )
    return records, taken


def test_steps_are_those_the_engine_took() -> None:
    """The critical path groups records by step as the game's graph ran them."""
    for seed in (1, 4):
        records, taken = _play_logging_steps(seed)
        assert [[r["id"] for r in group] for group in steps(records)] == taken
        assert any(len(group) > 1 and "protect" in " ".join(group) for group in taken)


def _misnaming(ask: Ask) -> dict[str, Any]:
    """Speakers nominate; votes name no one at the table at first, then the first nominee; every
    answer rates a player who is not there."""
    fields: dict[str, Any] = {"suspicions": [{"player": "Nobody Here", "level": 3, "reasoning": "odd"}]}
    if ask.action == "speak":
        fields["choice"] = ask.targets[0]
    if ask.action in ("vote", "revote"):
        fields["choice"] = ask.targets[0] if ask.retry else "Nobody Here"
    return fields


def test_grounding_slips_agree_with_the_engines_own_rejections(tmp_path: Path) -> None:
    run_game(
        {"seed": 5, "players": 7}, model=ScriptedModel(script=_misnaming), out_dir=tmp_path, thread_id="g"
    )
    events, prompts = (
        read_events(tmp_path / "g" / "events.jsonl"),
        read_prompts(tmp_path / "g" / "prompts.jsonl"),
    )
    ballots = [r for r in prompts if r["action"] in ("vote", "revote")]
    calls = sum(len(r["attempts"]) for r in prompts)
    assert ballots and calls > len(prompts)
    slips = grounding_slips(events, prompts)
    assert slips["choice_slips"] == {"absent": len(ballots)}
    assert rejections(prompts)["retries"] == {"illegal_choice": len(ballots)}
    assert slips["answers"] == calls and slips["suspicion_slips"] == {"absent": calls}


def test_folders_that_are_no_arena_get_a_clear_error(tmp_path: Path, arena: Path) -> None:
    with pytest.raises(ArenaError, match="no such folder"):
        load_arena(tmp_path / "missing")
    with pytest.raises(ArenaError, match="not an arena folder"):
        load_arena(tmp_path)
    (tmp_path / "games").mkdir()
    with pytest.raises(ArenaError, match="no finished game to report on yet"):
        write_report(tmp_path, echo=print)
    assert not (tmp_path / "report").exists()
    broken = tmp_path / "broken"
    shutil.copytree(arena / "games" / "seed-window", broken / "games" / "seed-window")
    events = broken / "games" / "seed-window" / "house" / "seed-2" / "events.jsonl"
    lines = events.read_text(encoding="utf-8").split("\n")
    events.write_text("\n".join([*lines[:2], '{"type": "speech"', *lines[3:]]), encoding="utf-8")
    with pytest.raises(ArenaError, match=r"seed-2/events\.jsonl:3: not valid JSON"):
        summarize(broken)
    events.write_text(
        "\n".join([*lines[:2], '{"type": "nothing", "round": 1}', *lines[3:]]), encoding="utf-8"
    )
    with pytest.raises(ArenaError, match=r"seed-2/events\.jsonl: event 3 is not a valid event"):
        summarize(broken)
    events.write_text("\n".join(lines), encoding="utf-8")
    prompts = events.parent / "prompts.jsonl"
    kept = prompts.read_text(encoding="utf-8")
    prompts.write_text(kept + '{"round": 9, "player": "Player 1"}\n', encoding="utf-8")
    with pytest.raises(ArenaError, match=r"seed-2/prompts\.jsonl: record \d+ is not a prompt record"):
        summarize(broken)
    prompts.write_text(kept, encoding="utf-8")
    (events.parent / "result.json").write_text("[1]", encoding="utf-8")
    with pytest.raises(ArenaError, match=r"seed-2/result\.json: expected a JSON object"):
        summarize(broken)
