"""Write what a refactor must leave byte-identical into one folder, for ``diff -r`` against another.

``python tests/support/fingerprint.py OUT`` writes the golden prompts as the code renders them now, the
event logs of the edge-sweep games (tests/nodes/test_graph_edges.py), and the logs (events and prompts)
of the games tests/runs/test_crash_resume.py plays as its references. Run it before and after a change
that should not change behaviour: ``diff -r before after`` printing nothing is the proof.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from repo import test_folders

sys.path[:0] = [str(folder) for folder in test_folders()]
os.environ.setdefault("LANGSMITH_TRACING", "false")

from edge_sweep import drawn_edges
from fakes import RandomLegalModel
from logbuilder import build_case, context_cases
from mafia.graph import compile_graph
from mafia.play.runner import RECURSION_LIMIT
from mafia.run.runtime import GameContext
from test_crash_resume import DEFAULT_GAMES, SLOW_GAMES, reference
from test_golden import golden_text
from test_graph_edges import EXTRA_SEEDS, SWEEP


def write_goldens(out: Path) -> None:
    folder = out / "golden"
    folder.mkdir(parents=True)
    for (action, role), case in sorted(context_cases().items(), key=lambda k: (k[0][0].value, k[0][1].value)):
        text = golden_text(build_case(case), role, game_over=case[3])
        (folder / f"{action.value}__{role.value.lower()}.txt").write_text(text, encoding="utf-8")


def write_sweep(out: Path) -> None:
    folder = out / "sweep"
    folder.mkdir(parents=True)
    graph = compile_graph()
    games = [*SWEEP]
    games += [({"seed": s, "players": 10}, GameContext(model=RandomLegalModel(seed=s))) for s in EXTRA_SEEDS]
    for number, (setup, context) in enumerate(games):
        state = graph.invoke({"setup": dict(setup)}, {"recursion_limit": RECURSION_LIMIT}, context=context)
        lines = "".join(json.dumps(e, sort_keys=True) + "\n" for e in state["events"])
        (folder / f"{number:02d}-seed{setup['seed']}-{setup['players']}p.jsonl").write_text(lines)
    (out / "drawn_edges.txt").write_text(
        "".join(f"{a} -> {b}\n" for a, b in sorted(drawn_edges(graph.get_graph())))
    )


def write_crash_references(out: Path) -> None:
    folder = out / "crash_resume"
    folder.mkdir(parents=True)
    games = sorted({(seed, players) for seed, players, _, _ in [*DEFAULT_GAMES, *SLOW_GAMES]})
    with tempfile.TemporaryDirectory() as tmp:
        for seed, players in games:
            for name, data in reference(Path(tmp) / f"{seed}-{players}", seed, players).items():
                (folder / f"seed{seed}-{players}p-{name}").write_bytes(data)


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=False)
    write_goldens(out)
    write_sweep(out)
    write_crash_references(out)
    print(f"fingerprint_files={sum(1 for p in out.rglob('*') if p.is_file())}")


if __name__ == "__main__":
    main()
