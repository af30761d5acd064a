"""The house model: structured output on both routes, determinism, legality, and sensible play.

Unit tests render synthetic prompts with the ``anchors.format_*`` helpers (the same lines the
context builder writes); integration tests render real prompts with ``build_context`` from
scripted logs and play whole games through the graph.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any, Literal

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field, ValidationError

from logbuilder import LogBuilder
from mafia.context.builder import build_context
from mafia.game import rules
from mafia.game.actions import (
    ACTION_SCHEMAS,
    ActionBase,
    ActionKind,
    Answer,
)
from mafia.game.events import Fallback, GameOver, parse_event
from mafia.game.personas import PERSONAS
from mafia.game.rules import SKIP, Role
from mafia.models.house import HouseModel, prompt_text
from mafia.models.house.night_tactics import reads_differ
from mafia.models.house.prompt_reading import read_prompt
from mafia.nodes.player import TEXT_FIELD
from mafia.prompts import anchors as a

PLAYERS = [f"Player {k}" for k in range(1, 8)]
CLAIM = "I am the Detective."
Names = Sequence[str]
FIREBRAND = next(p.description for p in PERSONAS if p.key == "firebrand")


# ---- synthetic prompts -----------------------------------------------------------------------


def default_targets(action: str, me: str, living: Names, partners: Names) -> list[str]:
    if action == "speak":
        return rules.nomination_targets(living, me)
    if action in ("mafia_round1", "mafia_round2", "night_kill"):
        return rules.night_kill_targets(living, [me, *partners])
    if action == "protect":
        return rules.protection_targets(living)
    if action == "investigate":
        return rules.investigation_targets(living, me)
    return []


def prompt(
    me: str,
    role: str,
    action: str,
    *,
    living: Sequence[str] = PLAYERS,
    targets: Sequence[str] | None = None,
    speeches: Sequence[tuple[str, str, str | None]] = (),
    earlier_days: Sequence[Sequence[tuple[str, str, str | None]]] = (),
    day: int = 1,
    phase: str = "Day",
    results: Sequence[tuple[int, str, str]] = (),
    partners: Sequence[str] = (),
    dead: Sequence[tuple[str, str]] = (),
    memory: Sequence[tuple[str, int]] | None = None,
    persona: str = PERSONAS[0].description,
    proposals: Sequence[tuple[str, str, str]] = (),
    plans: Sequence[tuple[str, str]] = (),
    ballots: Sequence[Sequence[tuple[str, str]]] = (),
    game_over: bool = False,
) -> list[BaseMessage]:
    """A prompt laid out like the context builder's, written with the anchor helpers."""
    example = "Example: " + a.format_speech("Player 9", "I suspect Player 1.", "Player 1")
    system = "\n".join(
        [a.IDENTITY, a.format_identity(me, role), a.format_persona(persona), "", a.RULES, example]
    )
    lines = [a.STATE, a.format_round(phase, day), a.format_living(living), a.format_dead(dead)]
    if role == "Mafia":
        lines += ["", a.MAFIA_INFO, a.format_partners([(p, p in living) for p in partners])]
        lines += [a.format_strategy(s, t) for s, t in plans]
        lines += [a.format_proposal(s, t, m) for s, t, m in proposals]
    if role == "Detective":
        lines += ["", a.INVESTIGATIONS] + [a.format_result(n, t, r) for n, t, r in results]
    lines += ["", a.TRANSCRIPT]
    all_days = [*earlier_days, speeches]
    for offset, said in enumerate(all_days):
        number = day - len(all_days) + 1 + offset
        lines.append(a.format_day_header(number))
        lines += [a.format_speech(s, t, n) for s, t, n in said]
        if offset < len(ballots):
            lines.append(a.format_ballots("Votes", ballots[offset]))
    if memory is not None:
        lines += ["", a.MEMORY, a.format_suspicions(memory)]
    if targets is None:
        targets = default_targets(action, me, living, partners)
    lines += ["", a.format_task_header(action), "Do your part."]
    if action not in ("defense", "last_words", "night_zero"):
        lines.append(a.format_targets(targets))
    if game_over:
        lines.append(a.GAME_OVER_HINT)
    return [SystemMessage(system), HumanMessage("\n".join(lines))]


def with_raw(out: dict[str, Any] | BaseModel) -> dict[str, Any]:
    """A structured call's ``include_raw`` result: the raw reply, the parsed answer, the error."""
    assert isinstance(out, dict), out
    return out


def ask(
    messages: Sequence[BaseMessage],
    schema: type[ActionBase],
    *,
    seed: int = 0,
    method: Literal["function_calling", "json_schema"] = "function_calling",
    **knobs: Any,
) -> Any:
    model = HouseModel(seed=seed, **knobs)
    runnable = model.with_structured_output(schema, method=method, include_raw=True)
    out = with_raw(runnable.invoke(list(messages)))
    assert out["parsing_error"] is None, out["parsing_error"]
    assert isinstance(out["parsed"], schema)
    return out["parsed"]


def kind_schema(action: str) -> type[ActionBase]:
    return ACTION_SCHEMAS[ActionKind(action)]


# ---- the LangChain surface -------------------------------------------------------------------

ROLE_FOR = {
    ActionKind.NIGHT_ZERO: "Mafia",
    ActionKind.MAFIA_ROUND1: "Mafia",
    ActionKind.MAFIA_ROUND2: "Mafia",
    ActionKind.NIGHT_KILL: "Mafia",
    ActionKind.PROTECT: "Doctor",
    ActionKind.INVESTIGATE: "Detective",
}


def any_prompt(kind: ActionKind) -> list[BaseMessage]:
    role = ROLE_FOR.get(kind, "Town")
    partners = ["Player 5"] if role == "Mafia" else []
    night = kind in ROLE_FOR
    speeches = [
        ("Player 1", "I suspect Player 2.", "Player 2"),
        ("Player 2", "Not me.", "Player 1"),
    ]
    targets = None
    if kind in (ActionKind.VOTE, ActionKind.REVOTE):
        targets = ["Player 1", "Player 2", SKIP]
    return prompt(
        "Player 3",
        role,
        kind.value,
        partners=partners,
        speeches=[] if night else speeches,
        phase="Night" if night else "Day",
        day=0 if kind is ActionKind.NIGHT_ZERO else 1,
        targets=targets,
    )


@pytest.mark.parametrize("method", ["function_calling", "json_schema"])
@pytest.mark.parametrize("kind", list(ACTION_SCHEMAS))
def test_structured_output_round_trip(kind: ActionKind, method: str) -> None:
    schema = ACTION_SCHEMAS[kind]
    runnable = HouseModel(seed=3).with_structured_output(schema, method=method, include_raw=True)
    out = with_raw(runnable.invoke(any_prompt(kind)))
    assert out["parsing_error"] is None
    assert isinstance(out["parsed"], schema)
    raw = out["raw"]
    assert isinstance(raw, AIMessage)
    assert raw.usage_metadata is not None and raw.usage_metadata["total_tokens"] > 0
    if method == "function_calling":
        (call,) = raw.tool_calls
        assert call["name"] == schema.__name__ and call["id"]
        assert schema.model_validate(call["args"]) == out["parsed"]
    else:
        assert not raw.tool_calls
        assert schema.model_validate_json(str(raw.content)) == out["parsed"]
    # Without include_raw, the parsed object comes back directly.
    plain = HouseModel(seed=3).with_structured_output(schema, method=method)
    assert plain.invoke(any_prompt(kind)) == out["parsed"]


def test_bind_tools_answers_with_a_tool_call() -> None:
    msgs = any_prompt(ActionKind.SPEAK)
    bound = HouseModel().bind_tools([Answer])
    reply = bound.invoke(msgs)
    assert isinstance(reply, AIMessage)
    (call,) = reply.tool_calls
    assert call["name"] == "Answer" and (call["id"] or "").startswith("call_")
    Answer.model_validate(call["args"])
    usage = reply.usage_metadata
    assert usage is not None
    assert usage["input_tokens"] > 100 and usage["output_tokens"] > 10
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


def test_picks_the_action_tool_among_several_and_honours_tool_choice() -> None:
    class Recall(BaseModel):
        """Look up an archived round."""

        day: int

    msgs = any_prompt(ActionKind.VOTE)
    reply = HouseModel().bind_tools([Recall, Answer]).invoke(msgs)
    assert isinstance(reply, AIMessage)
    assert reply.tool_calls[0]["name"] == "Answer"
    forced = HouseModel().bind_tools([Recall, Answer], tool_choice="Recall").invoke(msgs)
    assert isinstance(forced, AIMessage)
    assert forced.tool_calls[0]["name"] == "Recall"
    assert isinstance(forced.tool_calls[0]["args"]["day"], int)


def test_plain_invoke_returns_text() -> None:
    reply = HouseModel().invoke(any_prompt(ActionKind.SPEAK))
    assert isinstance(reply.content, str) and len(reply.content) > 10
    assert not reply.tool_calls
    assert HouseModel().invoke("Hello there").content


def test_async_invoke_matches_sync() -> None:
    import asyncio

    runnable = HouseModel(seed=5).with_structured_output(Answer, include_raw=True)
    msgs = any_prompt(ActionKind.SPEAK)
    sync = with_raw(runnable.invoke(msgs))
    result = with_raw(asyncio.run(runnable.ainvoke(msgs)))
    assert result["parsed"] == sync["parsed"]


class Custom(BaseModel):
    """A schema the house model has never seen."""

    mood: Literal["calm", "angry"]
    confidence: int = Field(ge=1, le=3)
    ratio: float = Field(gt=0.0, lt=1.0)
    tags: list[str] = Field(min_length=2, max_length=2)
    note: str | None
    nested: Answer
    flag: bool


@pytest.mark.parametrize("method", ["function_calling", "json_schema"])
def test_fills_unknown_schemas_generically(method: str) -> None:
    msgs = any_prompt(ActionKind.VOTE)
    out = with_raw(HouseModel().with_structured_output(Custom, method=method, include_raw=True).invoke(msgs))
    assert out["parsing_error"] is None
    parsed = out["parsed"]
    assert isinstance(parsed, Custom)
    assert len(parsed.tags) == 2 and 1 <= parsed.confidence <= 3
    assert parsed.nested.choice in ("Player 1", "Player 2", SKIP)


@pytest.mark.parametrize("method", ["function_calling", "json_schema"])
def test_dict_schemas_work_on_both_routes(method: str) -> None:
    schema = convert_to_openai_tool(Answer)["function"]
    out = with_raw(
        HouseModel()
        .with_structured_output(schema, method=method, include_raw=True)
        .invoke(any_prompt(ActionKind.VOTE))
    )
    assert out["parsing_error"] is None
    Answer.model_validate(out["parsed"])


def test_unknown_method_is_rejected() -> None:
    with pytest.raises(ValueError, match="json_schema"):
        HouseModel().with_structured_output(Answer, method="json_mode")


# ---- determinism and what it reads -----------------------------------------------------------


def test_same_messages_and_seed_give_the_same_answer_byte_for_byte() -> None:
    msgs = any_prompt(ActionKind.SPEAK)
    for method in ("function_calling", "json_schema"):
        runs = [
            with_raw(
                HouseModel(seed=11)
                .with_structured_output(Answer, method=method, include_raw=True)
                .invoke(msgs)
            )["raw"]
            for _ in range(2)
        ]
        assert runs[0].model_dump_json() == runs[1].model_dump_json()
    answers = {
        json.dumps(
            HouseModel(seed=s).answer(msgs, tools=[convert_to_openai_tool(Answer)]).tool_calls[0]["args"],
            sort_keys=True,
        )
        for s in range(8)
    }
    assert len(answers) > 1, "the seed should change something"


def test_reads_nothing_but_the_messages() -> None:
    msgs = any_prompt(ActionKind.SPEAK)
    tool = convert_to_openai_tool(Answer)
    first = HouseModel(seed=2).answer(msgs, tools=[tool])
    # Unrelated calls in between (other prompts, other seeds) leave no trace.
    noise = HouseModel(seed=9)
    for kind in ACTION_SCHEMAS:
        noise.answer(any_prompt(kind), tools=[convert_to_openai_tool(ACTION_SCHEMAS[kind])])
    again = HouseModel(seed=2).answer(msgs, tools=[tool])
    assert again.model_dump_json() == first.model_dump_json()
    # Only the text counts: the same text split differently gives the same answer.
    merged = [HumanMessage(prompt_text(msgs))]
    assert HouseModel(seed=2).answer(merged, tools=[tool]).tool_calls == first.tool_calls


# ---- legality over many synthetic prompts ----------------------------------------------------

_LINES = (
    "I suspect {x}.",
    "{x} is Mafia, I am sure.",
    "I trust {x}.",
    "I am the Detective. I investigated {x}: Mafia.",
    "I am the Detective. I investigated {x}: Not Mafia.",
    "I am the Doctor.",
    "{x} is lying about everything.",
    "Nothing to add.",
)


def random_case(
    rng: random.Random,
) -> tuple[list[BaseMessage], str, str, list[str], list[str], list[str]]:
    n = rng.randint(5, 16)
    seats = rules.assign_roles(rules.GameConfig(players=n, seed=rng.randrange(10**6)))
    names = [s.name for s in seats]
    role_of = {s.name: s.role for s in seats}
    mafia = [p for p in names if role_of[p] is Role.MAFIA]
    dead = set(rng.sample([p for p in names if p not in mafia[:1]], rng.randint(0, n - 4)))
    living = [p for p in names if p not in dead]
    me = rng.choice(living)
    role = role_of[me]
    partners = [m for m in mafia if m != me] if role is Role.MAFIA else []
    kinds = ["speak", "vote", "revote", "defense", "last_words"]
    if role is Role.MAFIA:
        kinds += ["night_zero", "mafia_round1", "mafia_round2", "night_kill"]
    elif role is Role.DOCTOR:
        kinds.append("protect")
    elif role is Role.DETECTIVE:
        kinds.append("investigate")
    action = rng.choice(kinds)
    speeches = []
    for speaker in rng.sample(living, rng.randint(0, len(living))):
        x = rng.choice([p for p in names if p != speaker])
        nominee = rng.choice([None, *[p for p in living if p != speaker]])
        speeches.append((speaker, rng.choice(_LINES).format(x=x), nominee))
    targets = None
    if action in ("vote", "revote"):
        nominees = sorted({s[2] for s in speeches if s[2]}) or [rng.choice(living)]
        targets = rules.ballot_options(nominees)
    results = []
    if role is Role.DETECTIVE:
        for night, t in enumerate(rng.sample([p for p in names if p != me], 2), start=1):
            results.append((night, t, "Mafia" if role_of[t] is Role.MAFIA else "Not Mafia"))
    proposals = [
        (m, rng.choice([p for p in living if p not in mafia] + [SKIP]), "go")
        for m in partners
        if m in living and action == "mafia_round2"
    ]
    msgs = prompt(
        me,
        role.value,
        action,
        living=living,
        targets=targets,
        speeches=speeches,
        day=rng.randint(1, 5),
        phase="Night"
        if action in ("mafia_round1", "mafia_round2", "night_kill", "protect", "investigate")
        else "Day",
        results=results,
        partners=partners,
        dead=[(p, "night 1") for p in sorted(dead)],
        persona=rng.choice(PERSONAS).description,
        proposals=proposals,
        memory=[(me, 9)],
    )
    if targets is None:
        targets = default_targets(action, me, living, partners)
    return msgs, me, action, living, partners, targets


def test_choices_are_always_legal_and_complete() -> None:
    rng = random.Random(1234)
    for case in range(400):
        msgs, me, action, living, partners, targets = random_case(rng)
        schema = kind_schema(action)
        model = HouseModel(seed=case, skill=1.0 if case % 2 else 0.6, aggression=(case % 5) / 4)
        reply = model.answer(msgs, tools=[convert_to_openai_tool(schema)])
        parsed = schema.model_validate(reply.tool_calls[0]["args"])
        label = f"case {case}: {me} {action}"
        assert isinstance(parsed, Answer), label  # every action's schema
        choice = parsed.choice
        if action == "speak":
            assert parsed.choice is None or parsed.choice in targets, label
            assert parsed.choice != me, label
        elif choice is not None:
            assert choice in targets, label
        if partners:
            assert choice not in partners, label
        assert {s.player for s in parsed.suspicions} == set(living) - {me}, label
        assert all(0 <= s.level <= 10 for s in parsed.suspicions), label
        if TEXT_FIELD[ActionKind(action)] is None:
            assert parsed.text is None, label
        else:
            assert parsed.text and "\n" not in parsed.text and '"' not in parsed.text, label


# ---- sensible play (synthetic prompts) -------------------------------------------------------


def test_detective_reveals_a_mafia_finding_in_the_next_speech() -> None:
    for seed in range(10):
        msgs = prompt(
            "Player 3",
            "Detective",
            "speak",
            day=2,
            living=[p for p in PLAYERS if p != "Player 7"],
            dead=[("Player 7", "night 1")],
            results=[(1, "Player 5", "Mafia")],
            speeches=[("Player 1", "Quiet day so far.", None)],
            persona=PERSONAS[seed].description,
        )
        parsed = ask(msgs, Answer, seed=seed)
        assert "I am the Detective" in parsed.text
        assert "I investigated Player 5: Mafia" in parsed.text
        assert parsed.choice == "Player 5"


def test_detective_stays_hidden_without_a_reason_and_keeps_reporting_once_out() -> None:
    quiet = prompt("Player 3", "Detective", "speak", day=2, results=[(1, "Player 5", "Not Mafia")])
    assert "Detective" not in ask(quiet, Answer).text
    claimed = prompt(
        "Player 3",
        "Detective",
        "speak",
        day=3,
        results=[(1, "Player 5", "Mafia"), (2, "Player 6", "Not Mafia")],
        earlier_days=[[("Player 3", f"{CLAIM} I investigated Player 5: Mafia.", "Player 5")]],
        living=[p for p in PLAYERS if p != "Player 5"],
        dead=[("Player 5", "voted day 2")],
    )
    speech = ask(claimed, Answer).text
    assert "I investigated Player 6: Not Mafia" in speech and "Detective" in speech


def test_detective_investigates_an_uninvestigated_suspect() -> None:
    msgs = prompt(
        "Player 3",
        "Detective",
        "investigate",
        phase="Night",
        results=[(1, "Player 2", "Not Mafia")],
        earlier_days=[
            [
                ("Player 4", "I suspect Player 6.", "Player 6"),
                ("Player 5", "Player 6 is lying.", "Player 6"),
            ]
        ],
        speeches=[],
        day=2,
    )
    assert ask(msgs, kind_schema("investigate")).choice == "Player 6"


def test_town_votes_the_player_a_detective_claim_named_mafia() -> None:
    speeches = [
        ("Player 2", "I am the Detective. I investigated Player 5: Mafia.", "Player 5"),
        ("Player 5", "Player 2 is lying, I suspect Player 2.", "Player 2"),
        ("Player 6", "I am not sure.", None),
    ]
    for seed in range(10):
        msgs = prompt(
            "Player 4",
            "Town",
            "vote",
            day=2,
            speeches=speeches,
            targets=["Player 5", "Player 2", SKIP],
            persona=PERSONAS[seed].description,
        )
        assert ask(msgs, Answer, seed=seed).choice == "Player 5"


def test_town_skips_when_nothing_stands_out() -> None:
    msgs = prompt(
        "Player 4",
        "Town",
        "vote",
        speeches=[("Player 1", "I suspect Player 2, call it a hunch.", "Player 2")],
        targets=["Player 2", SKIP],
    )
    assert ask(msgs, Answer).choice == SKIP


def test_doctor_protects_a_claimed_detective() -> None:
    for seed in range(10):
        msgs = prompt(
            "Player 4",
            "Doctor",
            "protect",
            phase="Night",
            earlier_days=[[("Player 2", f"{CLAIM} I investigated Player 6: Not Mafia.", None)]],
            speeches=[],
            day=2,
        )
        assert ask(msgs, Answer, seed=seed).choice == "Player 2"


def test_doctor_without_a_claim_protects_itself_or_a_town_voice() -> None:
    picks = set()
    for seed in range(20):
        msgs = prompt("Player 4", "Doctor", "protect", phase="Night")
        picks.add(ask(msgs, Answer, seed=seed).choice)
    assert "Player 4" in picks and len(picks) > 1


def test_mafia_never_choose_a_partner_even_when_the_table_suspects_them() -> None:
    speeches = [
        ("Player 1", "I am the Detective. I investigated Player 5: Mafia.", "Player 5"),
        ("Player 2", "Player 5 is Mafia.", "Player 5"),
        ("Player 4", "I suspect Player 6.", "Player 6"),
    ]
    for seed in range(20):
        common: dict[str, Any] = {"speeches": speeches, "partners": ["Player 5"], "day": 2}
        speak = ask(prompt("Player 3", "Mafia", "speak", **common), Answer, seed=seed)
        assert speak.choice not in ("Player 5", "Player 3")
        vote = ask(
            prompt("Player 3", "Mafia", "vote", targets=["Player 5", "Player 6", SKIP], **common),
            Answer,
            seed=seed,
        )
        assert vote.choice == "Player 6"
        only_partner = ask(
            prompt("Player 3", "Mafia", "vote", targets=["Player 5", SKIP], **common),
            Answer,
            seed=seed,
        )
        assert only_partner.choice == SKIP


def test_mafia_go_after_a_detective_who_named_one_of_them() -> None:
    speeches = [("Player 1", "I am the Detective. I investigated Player 5: Mafia.", "Player 5")]
    counter = attack = 0
    for seed in range(40):
        msgs = prompt("Player 3", "Mafia", "speak", speeches=speeches, partners=["Player 5"], day=2)
        parsed = ask(msgs, Answer, seed=seed)
        assert parsed.choice == "Player 1"
        if "I am the Detective" in parsed.text:
            counter += 1
            assert "I investigated Player 1: Mafia" in parsed.text
        else:
            attack += 1
    assert counter and attack, "both a fake counterclaim and a plain attack should occur"
    kill = ask(
        prompt(
            "Player 3",
            "Mafia",
            "mafia_round1",
            phase="Night",
            day=2,
            earlier_days=[speeches],
            speeches=[],
            partners=["Player 5"],
        ),
        Answer,
    )
    assert kill.choice == "Player 1"


def test_a_partner_backs_an_earlier_proposal_unless_its_read_differs() -> None:
    danger = {"Player 4": 1.0, "Player 6": 1.0, "Player 7": 0.0}
    assert reads_differ(danger, "Player 4", "Player 6"), "its own best, ranked as high: its own"
    assert not reads_differ(danger, "Player 7", "Player 6"), "ranked lower: it backs the proposal"
    assert not reads_differ(danger, "Player 6", "Player 6")
    assert not reads_differ(danger, None, "Player 6")
    later = prompt(
        "Player 5",
        "Mafia",
        "mafia_round1",
        phase="Night",
        partners=["Player 2"],
        proposals=[("Player 2", "Player 6", "Let us take Player 6.")],
    )
    assert ask(later, Answer).choice in PLAYERS


def _round2_choices(proposals: list[tuple[str, str, str]]) -> dict[str, str]:
    choices = {}
    for me in ("Player 1", "Player 2", "Player 5"):
        partners = [p for p in ("Player 1", "Player 2", "Player 5") if p != me]
        msgs = prompt(me, "Mafia", "mafia_round2", partners=partners, phase="Night", proposals=proposals)
        choices[me] = ask(msgs, kind_schema("mafia_round2")).choice
    return choices


def test_round2_follows_the_best_supported_proposal_and_a_split_goes_to_the_lowest_seat() -> None:
    backed = [("Player 1", "Player 4", "a"), ("Player 2", "Player 6", "b"), ("Player 5", "Player 6", "c")]
    assert set(_round2_choices(backed).values()) == {"Player 6"}
    split = [("Player 1", "Player 4", "a"), ("Player 2", "Player 6", "b"), ("Player 5", "Player 7", "c")]
    choices = _round2_choices(split)
    assert choices == {"Player 1": "Player 4", "Player 2": "Player 6", "Player 5": "Player 7"}
    decision = rules.resolve_round2(choices, ["Player 1", "Player 2", "Player 5"])
    assert decision == rules.KillDecision("Player 4", "lowest_seat")


def test_night_zero_plans_name_a_push_and_partners_build_on_it() -> None:
    first = ask(
        prompt("Player 2", "Mafia", "night_zero", phase="Night", day=0, partners=["Player 5"]),
        kind_schema("night_zero"),
    )
    push = first.text.split("Day push: ")[1].split(".")[0]
    assert push in PLAYERS and push not in ("Player 2", "Player 5")
    second = ask(
        prompt(
            "Player 5",
            "Mafia",
            "night_zero",
            phase="Night",
            day=0,
            partners=["Player 2"],
            plans=[("Player 2", first.text)],
        ),
        kind_schema("night_zero"),
    )
    assert f"Day push: {push}." in second.text


def test_defense_denies_and_redirects() -> None:
    msgs = prompt(
        "Player 4",
        "Town",
        "defense",
        speeches=[
            ("Player 2", "I suspect Player 4.", "Player 4"),
            ("Player 6", "Player 4 is shady.", "Player 4"),
        ],
    )
    speech = ask(msgs, kind_schema("defense")).text
    assert "not Mafia" in speech or "I am Town" in speech
    assert any(p in speech for p in ("Player 2", "Player 6"))


def test_last_words_accuse_or_say_goodbye() -> None:
    speeches = [("Player 2", "I suspect Player 4.", "Player 4")]
    last_words = kind_schema("last_words")
    town = ask(prompt("Player 4", "Town", "last_words", speeches=speeches), last_words)
    assert "Player 2" in town.text
    over = ask(
        prompt("Player 4", "Town", "last_words", speeches=speeches, game_over=True),
        kind_schema("last_words"),
    )
    assert "game" in over.text.lower()


def test_speeches_vary_with_persona_and_seed() -> None:
    speeches = [
        ("Player 1", "I suspect Player 2.", "Player 2"),
        ("Player 5", "Player 2 is lying.", "Player 2"),
    ]
    texts = {
        ask(
            prompt("Player 3", "Town", "speak", speeches=speeches, persona=p.description),
            Answer,
            seed=seed,
        ).text
        for p in PERSONAS[:8]
        for seed in range(2)
    }
    assert len(texts) >= 10
    firebrand = ask(
        prompt("Player 3", "Town", "speak", speeches=speeches, persona=FIREBRAND),
        Answer,
        seed=1,
    )
    assert "Player 2" in firebrand.text


def test_house_speech_is_read_back_by_house_players() -> None:
    """A Detective's reveal and a Town accusation are parsed by the next house player."""
    reveal = ask(
        prompt("Player 3", "Detective", "speak", day=2, results=[(1, "Player 5", "Mafia")]),
        Answer,
    )
    view = read_prompt(
        prompt_text(
            prompt(
                "Player 4",
                "Town",
                "speak",
                day=2,
                speeches=[("Player 3", reveal.text, reveal.choice)],
            )
        )
    )
    reading = view.readings()[0][1]
    assert reading.detective_claim and ("Player 5", "Mafia") in reading.findings


LEGAL_VOTES = ("Player 1", "Player 2", SKIP)


def test_chaos_gives_bad_answers_on_the_tool_route() -> None:
    msgs = any_prompt(ActionKind.VOTE)
    for seed in range(30):
        model = HouseModel(seed=seed, chaos=1.0)
        out = with_raw(model.with_structured_output(Answer, include_raw=True).invoke(msgs))
        parsed = out["parsed"]
        # A schema error, no tool call at all (parsed None), or an illegal choice.
        assert out["parsing_error"] is not None or parsed is None or parsed.choice not in LEGAL_VOTES
    calm = with_raw(HouseModel(chaos=0.0).with_structured_output(Answer, include_raw=True).invoke(msgs))
    assert calm["parsing_error"] is None and calm["parsed"].choice in LEGAL_VOTES


def test_chaos_on_the_json_route_raises_like_chatopenai_unless_told_not_to() -> None:
    msgs = any_prompt(ActionKind.VOTE)
    errors = 0
    for seed in range(20):
        runnable = HouseModel(seed=seed, chaos=1.0).with_structured_output(
            Answer, method="json_schema", include_raw=True
        )
        try:
            out = with_raw(runnable.invoke(msgs))
        except ValidationError:
            errors += 1
        else:
            assert out["parsed"].choice not in LEGAL_VOTES
    assert errors > 0
    soft = HouseModel(seed=0, chaos=1.0, raise_json_errors=False).with_structured_output(
        Answer, method="json_schema", include_raw=True
    )
    for k in range(10):
        out = with_raw(soft.invoke([*msgs, HumanMessage(f"retry {k}")]))
        assert out["parsing_error"] is not None or out["parsed"].choice not in LEGAL_VOTES


# ---- integration: real prompts from the context builder --------------------------------------


def seven() -> LogBuilder:
    # Seats: 1 Mafia, 2 Town, 3 Detective, 4 Doctor, 5 Town, 6 Mafia, 7 Town.
    return LogBuilder(["Mafia", "Town", "Detective", "Doctor", "Town", "Mafia", "Town"])


def built(log: LogBuilder, player: str, action: ActionKind, **kw: Any) -> list[BaseMessage]:
    return build_context(log.events, player, action, **kw).messages()


def test_builder_prompt_detective_reveals_after_finding_mafia() -> None:
    log = seven().night_zero().start_day().discuss({})
    log.night("Player 5", protect="Player 4", investigate="Player 6")
    log.start_day()
    parsed = ask(built(log, "Player 3", ActionKind.SPEAK), Answer)
    assert "I am the Detective" in parsed.text and "Player 6" in parsed.text
    assert parsed.choice == "Player 6"


def test_builder_prompt_town_votes_the_revealed_mafia_and_doctor_protects_the_claimant() -> None:
    log = seven().night_zero().start_day().discuss({})
    log.night("Player 5", protect="Player 4", investigate="Player 6")
    log.start_day()
    log.discuss({"Player 3": ("I am the Detective. I investigated Player 6: Mafia.", "Player 6")})
    for player in ("Player 2", "Player 4", "Player 7"):
        assert ask(built(log, player, ActionKind.VOTE), Answer).choice == "Player 6"
    log.vote({p: ("Player 1" if p in ("Player 6", "Player 1") else SKIP) for p in log.living})
    assert ask(built(log, "Player 4", ActionKind.PROTECT), Answer).choice == "Player 3"


def test_builder_prompt_mafia_protect_their_partner() -> None:
    log = seven().night_zero().start_day()
    log.discuss(
        {
            "Player 3": ("I am the Detective. I investigated Player 6: Mafia.", "Player 6"),
            "Player 5": ("I suspect Player 7.", "Player 7"),
        }
    )
    speak = ask(built(log, "Player 1", ActionKind.SPEAK), Answer)
    assert speak.choice not in ("Player 6", "Player 1")
    vote = ask(built(log, "Player 1", ActionKind.VOTE), Answer)
    assert vote.choice in ("Player 7", SKIP)
    log.vote({p: "Player 7" for p in log.living})
    log.last_words("I was Town.")
    round1 = ask(built(log, "Player 1", ActionKind.MAFIA_ROUND1), Answer)
    assert round1.choice == "Player 3", "the claimed Detective who named a partner goes first"


def test_builder_prompt_round2_holds_each_members_read_on_a_split() -> None:
    log = seven().night_zero().start_day().discuss({})
    log.mafia_round1({"Player 1": ("Player 2", "Take Player 2."), "Player 6": ("Player 7", "No.")})
    own = {"Player 1": "Player 2", "Player 6": "Player 7"}
    for mafia in ("Player 1", "Player 6"):
        choice = ask(built(log, mafia, ActionKind.MAFIA_ROUND2), kind_schema("mafia_round2"))
        assert choice.choice == own[mafia]


def test_builder_prompts_parse_cleanly() -> None:
    log = seven().night_zero().start_day()
    log.discuss({"Player 2": ("I suspect Player 5.", "Player 5")})
    log.vote({p: "Player 5" for p in log.living})
    log.last_words("I was Town. Player 2 is Mafia.")
    log.night("Player 7", protect="Player 7", investigate="Player 1")
    log.start_day()
    view = read_prompt(prompt_text(built(log, "Player 4", ActionKind.SPEAK)))
    assert view.me == "Player 4" and view.role == "Doctor" and view.action == "speak"
    assert (view.phase, view.round, view.today) == ("Day", 2, 2)
    assert view.living == ["Player 1", "Player 2", "Player 3", "Player 4", "Player 6", "Player 7"]
    assert ("Player 5", "day", 1) in view.dead
    assert view.targets == [p for p in view.living if p != "Player 4"]
    assert {(v, t) for v, t, _ in view.votes} == {(p, "Player 5") for p in PLAYERS}
    assert any(s.kind == "last_words" and s.speaker == "Player 5" for s in view.said)
    assert view.protections == [(1, "Player 7")] and 1 in view.quiet_nights
    assert view.persona in {p.description for p in PERSONAS}
    mafia = read_prompt(prompt_text(built(log, "Player 1", ActionKind.SPEAK)))
    assert mafia.partners == ["Player 6"] and mafia.living_partners == ["Player 6"]
    assert mafia.kills == [("Player 7", "survived")] and mafia.plans
    assert set(mafia.memory_levels) == set(mafia.living) - {"Player 1"}
    detective = read_prompt(prompt_text(built(log, "Player 3", ActionKind.SPEAK)))
    assert detective.results == [(1, "Player 1", "Mafia")]


def test_whole_games_through_the_graph_never_fall_back_and_are_reproducible() -> None:
    from mafia.play.runner import run_game

    logs = []
    for seed, players in ((1, 7), (2, 9), (1, 7)):
        state = run_game({"seed": seed, "players": players}, model=HouseModel(seed=seed))
        events = [parse_event(e) for e in state["events"]]
        assert not any(isinstance(e, Fallback) for e in events)
        assert sum(isinstance(e, GameOver) for e in events) == 1
        logs.append(state["events"])
    assert logs[0] == logs[2], "same seed, same game, byte for byte"


def test_without_a_targets_line_a_ballot_comes_from_the_nominees() -> None:
    msgs = prompt(
        "Player 4",
        "Town",
        "vote",
        speeches=[("Player 1", "I am the Detective. I investigated Player 2: Mafia.", "Player 2")],
        targets=[],
    )
    lines = [ln for ln in prompt_text(msgs).split("\n") if not ln.startswith("Valid targets")]
    lines.insert(lines.index(a.format_dead([])) + 1, a.format_nominees(["Player 2"]))
    assert ask([HumanMessage("\n".join(lines))], Answer).choice == "Player 2"


def test_a_prompt_without_a_task_is_read_by_its_phase_and_role() -> None:
    """No task header: at night the Doctor's answer is a protection among the valid targets."""
    msgs = prompt("Player 4", "Doctor", "protect", phase="Night", targets=["Player 2", "Player 4"])
    text = prompt_text(msgs).replace(a.format_task_header("protect"), "")
    answer = ask([HumanMessage(text)], Answer)
    assert answer.choice in ("Player 2", "Player 4") and answer.text is None
