"""Bad answers: how each is classified, re-asked, cleaned, capped and fallen back from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import httpx2  # the HTTP client openai is built on
import openai
import pytest
from langchain_core.exceptions import ModelRefusalError, OutputParserException
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_openai.chat_models.base import OpenAIRefusalError
from openai.types.chat import ChatCompletion
from pydantic import ValidationError

from audit import audit
from fakes import Ask, Recording, ScriptedModel
from mafia.context.policy import POLICIES
from mafia.context.views import player_view
from mafia.game.actions import ACTION_SCHEMAS, ActionKind, TextLimits
from mafia.game.events import (
    AnswerKind,
    Fallback,
    MafiaDiscussion,
    Speech,
    TextTruncated,
    Thought,
    dump_event,
    parse_event,
    roles_from_log,
)
from mafia.game.rules import Role
from mafia.game.state import JSON, TurnRequest
from mafia.graph import build_graph
from mafia.nodes.player import CHOICE_FIELD, FALLBACK_TEXT, TEXT_FIELD, answer_schema, finish_turn
from mafia.play.runner import RECURSION_LIMIT, run_game
from mafia.records.call_records import Attempt
from mafia.run.runtime import GameContext
from mafia.turn.answers import (
    Rejection,
    clean_answer,
    constrained_schema,
    rejection_of,
)
from table_driver import NO_PROMPT, play_table, random_answer

SPEAK_SCHEMA = ACTION_SCHEMAS[ActionKind.SPEAK]


def _named(field: str | None) -> str:
    """An answer field the action has (a speech both chooses and speaks)."""
    assert field is not None
    return field


SPEAK_CHOICE = _named(CHOICE_FIELD[ActionKind.SPEAK])
SPEAK_TEXT = _named(TEXT_FIELD[ActionKind.SPEAK])
REQUEST = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")


def _validation_error(text: str, schema: Any = SPEAK_SCHEMA) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        schema.model_validate_json(text)
    return caught.value


def _answer(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "observations": "o",
        "suspicions": [],
        "relationships": [],
        "pattern_notes": [],
        "strategy": "s",
        "reasoning": "r",
        SPEAK_TEXT: "hello",
        SPEAK_CHOICE: None,
    }
    return {**base, **fields}


def _completion(content: str, finish: str) -> ChatCompletion:
    return ChatCompletion.model_validate(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}
            ],
        }
    )


ANSWER_ERRORS: list[tuple[BaseException, AnswerKind]] = [
    (ModelRefusalError("no", raw_message=AIMessage("I can't help")), AnswerKind.REFUSAL),
    (OpenAIRefusalError("I won't"), AnswerKind.REFUSAL),
    (
        OpenAIRefusalError(
            "filtered", raw_message=AIMessage("", response_metadata={"finish_reason": "content_filter"})
        ),
        AnswerKind.CONTENT_FILTER,
    ),
    (openai.LengthFinishReasonError(completion=_completion('{"obs', "length")), AnswerKind.LENGTH),
    (openai.ContentFilterFinishReasonError(), AnswerKind.CONTENT_FILTER),
    (_validation_error('{"observations": "o'), AnswerKind.INVALID_JSON),
    (_validation_error('{"observations": "\\ud83d"}'), AnswerKind.INVALID_TEXT),
    (_validation_error('{"observations": 3}'), AnswerKind.SCHEMA),
    (
        _validation_error(
            json.dumps(_answer(**{SPEAK_CHOICE: "Nobody"})),
            constrained_schema(SPEAK_SCHEMA, SPEAK_CHOICE, ["Ann", "Bob"], True),
        ),
        AnswerKind.ILLEGAL_CHOICE,
    ),
    (OutputParserException("bad tool call", llm_output="{x"), AnswerKind.INVALID_JSON),
    (json.JSONDecodeError("Expecting value", "{x", 1), AnswerKind.INVALID_JSON),
]
PROVIDER_FAULTS: list[BaseException] = [
    openai.APIConnectionError(request=REQUEST),
    openai.APITimeoutError(request=REQUEST),
    openai.RateLimitError("slow down", response=httpx2.Response(429, request=REQUEST), body=None),
    openai.InternalServerError("oops", response=httpx2.Response(500, request=REQUEST), body=None),
    openai.BadRequestError("bad", response=httpx2.Response(400, request=REQUEST), body=None),
    UnicodeEncodeError("utf-8", "\ud83d", 0, 1, "surrogates not allowed"),
    RuntimeError("a bug"),
    ValueError("a bug in a model adapter"),
    KeyError("choices"),
]


@pytest.mark.parametrize(("exc", "kind"), ANSWER_ERRORS, ids=lambda x: type(x).__name__)
def test_bad_answers_are_rejections_of_their_kind(exc: BaseException, kind: AnswerKind) -> None:
    rejection = rejection_of(exc, SPEAK_CHOICE)
    assert rejection is not None and rejection.kind is kind
    assert rejection.error
    rejection.raw.encode("utf-8")  # always loggable


def test_a_refusal_and_a_cut_off_answer_keep_their_text_for_the_reask() -> None:
    refusal = rejection_of(ANSWER_ERRORS[0][0])
    length = rejection_of(ANSWER_ERRORS[3][0])
    assert refusal is not None and refusal.raw == "I can't help"
    assert length is not None and length.raw == '{"obs'


@pytest.mark.parametrize("exc", PROVIDER_FAULTS, ids=lambda x: type(x).__name__)
def test_provider_faults_are_not_answers(exc: BaseException) -> None:
    assert rejection_of(exc, SPEAK_CHOICE) is None


def test_clean_answer_strips_invalid_text_and_caps_each_field() -> None:
    limits = TextLimits(speech=50, private=40, note=30)
    answer = _answer(
        **{SPEAK_TEXT: "word " * 100},
        reasoning="r\x07e\ud83dason " * 10,
        pattern_notes=["n" * 31, "short"],
    )
    cleaned, cuts = clean_answer(answer, SPEAK_TEXT, limits.speech, limits)
    assert len(cleaned[SPEAK_TEXT]) == 50 and cleaned[SPEAK_TEXT].endswith("…")
    assert "\x07" not in cleaned["reasoning"] and "\ud83d" not in cleaned["reasoning"]
    assert len(cleaned["reasoning"]) <= 40
    assert cleaned["pattern_notes"][1] == "short"
    assert {(c.field, c.length, c.limit) for c in cuts} == {
        (SPEAK_TEXT, 500, 50),
        ("reasoning", 80, 40),
        ("pattern_notes.0", 31, 30),
    }


def test_text_limits_are_checked_and_read_from_json() -> None:
    with pytest.raises(ValueError, match=r"text_limits\.speech"):
        TextLimits(speech=5)
    context = GameContext(text_limits={"speech": 300})  # type: ignore[arg-type]
    assert context.text_limits == TextLimits(speech=300)


def test_only_a_reask_constrains_the_choice_and_the_copies_are_cached() -> None:
    assert answer_schema(ActionKind.SPEAK, ["Ann", "Bob"], reask=False) is SPEAK_SCHEMA
    first = answer_schema(ActionKind.SPEAK, ["Ann", "Bob"], reask=True)
    assert answer_schema(ActionKind.SPEAK, ["Ann", "Bob"], reask=True) is first
    assert list(first.model_fields) == list(SPEAK_SCHEMA.model_fields)
    prop = first.model_json_schema()["properties"][SPEAK_CHOICE]
    assert {"enum": ["Ann", "Bob"], "type": "string"} in prop["anyOf"] and {"type": "null"} in prop["anyOf"]
    vote_choice = CHOICE_FIELD[ActionKind.VOTE]
    assert vote_choice is not None
    vote = answer_schema(ActionKind.VOTE, ["Ann", "skip"], reask=True)
    assert vote.model_json_schema()["properties"][vote_choice]["enum"] == ["Ann", "skip"]


# ---- whole turns -----------------------------------------------------------------------------


def _fields(ask: Ask, **by_role: Any) -> dict[str, Any]:
    action = ActionKind(ask.action)
    out: dict[str, Any] = {}
    text, choice = TEXT_FIELD.get(action), CHOICE_FIELD[action]
    if text is not None and "text" in by_role:
        out[text] = by_role["text"]
    if choice is not None and "choice" in by_role:
        out[choice] = by_role["choice"]
    return out


def test_a_rejected_speech_is_reasked_in_alternating_roles_then_never_published() -> None:
    attempt = iter(range(10**6))

    def script(ask: Ask) -> dict[str, Any]:
        if ask.action != "speak":
            return {}
        return _fields(ask, text=f"REJECTED-SPEECH-{next(attempt)}", choice="Nobody")

    model = Recording(script=script)
    records: list[dict[str, Any]] = []
    state = run_game({"seed": 3, "players": 5, "round_cap": 1}, model=model, on_prompt=records.append)
    events = [parse_event(e) for e in state["events"]]
    assert audit(events) == []
    speeches = [e for e in events if isinstance(e, Speech)]
    assert speeches and all(
        s.text == FALLBACK_TEXT[ActionKind.SPEAK] and s.nomination is None for s in speeches
    )
    assert "REJECTED-SPEECH" not in json.dumps([dump_event(e) for e in events])
    fallbacks = [e for e in events if isinstance(e, Fallback)]
    assert len(fallbacks) == len(speeches) and {f.kind for f in fallbacks} == {AnswerKind.ILLEGAL_CHOICE}
    speak_calls = [c for c in model.calls_seen if "[YOUR TASK: SPEAK]" in c[1][1]]
    assert len(speak_calls) == 3 * len(speeches)
    for number, (roles, texts, schema) in enumerate(speak_calls):
        choice_schema = json.dumps(schema["properties"][SPEAK_CHOICE])
        if number % 3 == 0:
            assert roles == ["system", "human"]
            assert "enum" not in choice_schema  # the game-stable schema
        else:
            # Only the latest rejected answer and its error follow the prompt.
            assert roles == ["system", "human", "ai", "human"]
            assert (
                f"REJECTED-SPEECH-{number - 1}" in texts[2]
                and f"REJECTED-SPEECH-{number - 2}" not in texts[2]
            )
            assert "rejected (illegal_choice)" in texts[3]
            assert '"enum"' in choice_schema and "Nobody" not in choice_schema
    speak_records = [r for r in records if r["action"] == "speak"]
    assert all([a["kind"] for a in r["attempts"]] == ["illegal_choice"] * 3 for r in speak_records)
    assert all(r["fallback_kind"] == "illegal_choice" for r in speak_records)


def test_a_failed_answer_keeps_the_beliefs_of_the_last_good_one() -> None:
    def script(ask: Ask) -> dict[str, Any]:
        if ask.action == "speak":
            return {"pattern_notes": [f"MARKER from {ask.player}"]}
        return _fields(ask, choice="Nobody")  # every later decision is illegal

    records: list[dict[str, Any]] = []
    state = run_game(
        {"seed": 3, "players": 5, "round_cap": 2},
        model=ScriptedModel(script=script),
        policy=POLICIES["seed-window"],  # a memory that shows the notes
        on_prompt=records.append,
    )
    events = [parse_event(e) for e in state["events"]]
    fallen = {(f.player, f.round, f.action) for f in events if isinstance(f, Fallback)}
    assert fallen, "some decisions fell back"
    thoughts = [t for t in events if isinstance(t, Thought)]
    assert not {(t.player, t.round, t.action) for t in thoughts} & fallen, "a fallback wrote a thought"
    checked = 0
    for player in {t.player for t in thoughts if t.action == "speak"}:
        mine = [r for r in records if r["player"] == player]
        first = next(i for i, r in enumerate(mine) if r["action"] == "speak")
        for record in mine[first + 1 :]:
            checked += 1
            assert f"MARKER from {player}" in record["user"], "memory lost the last good beliefs"
    assert checked


def test_invalid_text_never_stops_a_game_nor_reaches_a_log(tmp_path: Path) -> None:
    def script(ask: Ask) -> dict[str, Any]:
        bad = "\ud83d" if ask.player.endswith(("1", "3")) else "\x1b[2J\x00"
        return {"reasoning": f"thinking {bad}", **_fields(ask, text=f"hi {bad} there")}

    state = run_game(
        {"seed": 2, "players": 5, "round_cap": 1}, model=ScriptedModel(script=script), out_dir=tmp_path
    )
    events = [parse_event(e) for e in state["events"]]
    assert audit(events) == []
    kinds = {f.kind for f in events if isinstance(f, Fallback)}
    assert kinds == {AnswerKind.INVALID_TEXT}
    (folder,) = tmp_path.glob("game-*")
    log = (folder / "events.jsonl").read_text(encoding="utf-8")
    assert "\\ud83d" not in log and "\\u0000" not in log and "\\u001b" not in log
    # The prompt records keep each rejected answer as evidence, made encodable: escaped control
    # characters stay, a lone surrogate becomes U+FFFD.
    records = (folder / "prompts.jsonl").read_text(encoding="utf-8")
    assert "\\ud83d" not in records and "\ufffd" in records and "\\u0000" in records


def test_overlong_text_is_capped_and_the_cut_logged() -> None:
    def script(ask: Ask) -> dict[str, Any]:
        return {"reasoning": "why " * 1000, **_fields(ask, text="blah " * 4000)}

    graph = build_graph().compile()
    limits = TextLimits(speech=100, message=60, plan=80)
    state = graph.invoke(
        {"setup": {"seed": 5, "players": 7, "round_cap": 1}},
        {"recursion_limit": RECURSION_LIMIT},
        context=GameContext(model=ScriptedModel(script=script), text_limits=limits),
    )
    events = [parse_event(e) for e in state["events"]]
    speeches = [e for e in events if isinstance(e, Speech)]
    assert speeches and all(len(s.text) == 100 for s in speeches)
    cuts = [e for e in events if isinstance(e, TextTruncated)]
    assert {(c.field, c.length, c.limit) for c in cuts if c.action == "speak"} == {
        (SPEAK_TEXT, 20_000, 100),
        ("reasoning", 4_000, limits.private),
    }
    thoughts = [t for t in events if isinstance(t, Thought)]
    assert all(len(t.reasoning) <= limits.private for t in thoughts)
    assert all(not isinstance(e, Fallback) for e in events)


def test_a_mafia_members_reasoning_is_hidden_from_partners() -> None:
    def script(ask: Ask) -> dict[str, Any]:
        return {"reasoning": f"SECRET-{ask.player}-{ask.action}"}

    state = run_game(
        {"seed": 1, "players": 9, "roles": {"mafia": 3}, "round_cap": 2}, model=ScriptedModel(script=script)
    )
    events = [parse_event(e) for e in state["events"]]
    mafia = [p for p, r in roles_from_log(events).items() if r is Role.MAFIA]
    assert len(mafia) == 3 and any(isinstance(e, MafiaDiscussion) for e in events)
    for member in mafia:
        own = json.dumps([dump_event(e) for e in player_view(events, member)])
        assert f"SECRET-{member}-mafia_round1" in own or f"SECRET-{member}-night_kill" in own
        for partner in mafia:
            if partner != member:
                seen = json.dumps([dump_event(e) for e in player_view(events, partner)])
                assert f"SECRET-{member}-" not in seen


def test_old_logs_with_mafia_reasoning_still_read_without_it() -> None:
    old = {
        "type": "mafia_discussion",
        "round": 1,
        "speaker": "Ann",
        "target": "Bob",
        "message": "Bob",
        "reasoning": "my secret",
        "coordination_round": 1,
    }
    event = parse_event(old)
    assert isinstance(event, MafiaDiscussion) and "reasoning" not in dump_event(event)


class BrokenAdapter(ScriptedModel):
    """A model adapter with a bug: every call raises a plain ValueError before any answer."""

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        raise ValueError("adapter bug: unexpected payload")


def test_a_bug_in_a_model_adapter_stops_the_game_instead_of_falling_back() -> None:
    records: list[dict[str, Any]] = []
    with pytest.raises(ValueError, match="adapter bug"):
        run_game({"seed": 2}, model=BrokenAdapter(), on_prompt=records.append)
    assert records == []  # no turn was finished on a fallback


def test_a_request_checkpointed_without_its_fallback_falls_back_as_its_row_says() -> None:
    # A person's paused turn checkpointed by a release whose requests carried no fallback: once every
    # answer is rejected on resume, the turn takes the choice its action's row gives, as a new
    # request would carry it.
    requests: list[TurnRequest] = []
    answer = random_answer(3)

    def watching(request: TurnRequest, prompt: JSON) -> JSON:
        requests.append(request)
        return answer(request, prompt)

    play_table({"seed": 3, "players": 9}, watching)
    assert {r["action"] for r in requests} >= {"speak", "vote", "mafia_round1", "protect"}
    rejected = Rejection(kind=AnswerKind.SCHEMA, error="not the schema")
    attempt = cast(Attempt, {"raw": "{}", "error": rejected.error, "kind": rejected.kind.value})
    for request in requests:
        saved = cast(TurnRequest, {k: v for k, v in request.items() if k != "fallback"})
        state: Any = {"request": saved, "answer": None, "prompt": NO_PROMPT}
        turn = finish_turn(state, None, rejected, [attempt], TextLimits())
        assert turn["choice"] == request["fallback"], request["id"]
