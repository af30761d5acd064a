"""A person's seat: the turn asked with LangGraph's ``interrupt()``, the answer checked like a model's.

A seat whose model is ``"human"`` pauses the game at each of its turns with a payload that says whose
turn it is, the action, the legal options and the context the model would get, rendered for reading.
The game resumes with ``Command(resume=answer)`` (one pending turn) or ``Command(resume={interrupt id:
answer, ...})`` (several people at once), from Studio, from Python, or from ``mafia play --human``
through ``TerminalSeat``. The answer becomes the same structured answer a model gives and goes through
the same checks, re-asks and logs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.types import Command, Interrupt, interrupt
from pydantic import ValidationError
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from mafia.context.memory import NIGHT_ACTIONS
from mafia.game.actions import Answer, empty_answer
from mafia.game.events import AnswerKind
from mafia.game.rules import CLAIMABLE
from mafia.game.state import JSON
from mafia.models.settings import ModelSettings
from mafia.prompts.anchors import SECTION_HEADER
from mafia.records.call_records import new_attempt
from mafia.turn.answers import Rejection, normalize_choice, rejection_of
from mafia.turn.state import PlayerTurnState

# The key under which a paused stream reports its interrupts (LangGraph documents it; the constant
# itself is private).
INTERRUPT = "__interrupt__"
HUMAN = "human"
"""The model spec of a seat a person plays (``--human 3`` is ``--seat-model 3=human``)."""

Respond = Callable[[JSON], Any]
"""Answers a person's turn: given the interrupt's payload, returns the resume value."""

# What the text of each action is called when a person is asked for it.
TEXT_NAMES = {
    "speak": "speech",
    "defense": "defense",
    "last_words": "last words",
    "night_zero": "plan for the Mafia",
    "mafia_round1": "message to your partners",
}
# A person's attempt is recorded as a model call is, with nothing billed (and no cache prefixes).
NO_TOKENS = {"prompt_tokens": 0, "schema_tokens": 0, "output_tokens": 0}
CLAIM_ROLES = [role.value for role in CLAIMABLE]
ANSWER_HELP = (
    'Resume with an object of the fields asked for: "text", "choice" (an option\'s name or its number '
    'in "options"), "claim" (a role or null); any reasoning field of the model\'s answer may be added. '
    "A string alone is the text, or the choice where no text is asked."
)


def is_human(spec: object) -> bool:
    """Whether a seat's model spec (a string or settings) stands for a person."""
    name = spec.model if isinstance(spec, ModelSettings) else spec
    return isinstance(name, str) and name.strip().casefold() == HUMAN


def has_people(model: object, seat_models: Mapping[str, object]) -> bool:
    """Whether any seat of a game is played by a person."""
    return is_human(model) or any(is_human(m) for m in seat_models.values())


# ---- the interrupt --------------------------------------------------------------------------

# The player subgraph shares the game's checkpointer, so ``interrupt()`` in its decide step pauses
# the game there, and a resumed turn replays the answers given so far (re-asks included) in order.


def ask_person(
    state: PlayerTurnState, choice_field: str | None, text_field: str | None, claims: bool
) -> JSON:
    """The decide step for a person's seat: pause the game with the turn's payload, and record the
    resumed answer as an attempt, as a model's call is recorded (no tokens: nothing was billed)."""
    payload = turn_payload(state, choice_field, text_field, claims)
    value = interrupt(payload)
    answer, raw, rejection = answer_of(value, payload)
    attempt = new_attempt(raw, NO_TOKENS)
    attempt["provider_usage"] = None
    if rejection is not None:
        attempt = {**attempt, "error": rejection.error, "kind": rejection.kind.value}
    return {"answer": answer, "error": attempt["error"], "attempts": [*state["attempts"], attempt]}


def turn_payload(
    state: PlayerTurnState, choice_field: str | None, text_field: str | None, claims: bool
) -> JSON:
    """What a person is shown and asked: whose turn, the action, the options, the context."""
    req = state["request"]
    action = req["action"]
    attempts = state["attempts"]
    prompt = state["prompt"]
    when = "Night" if action in NIGHT_ACTIONS else "Day"
    return {
        "player": req["player"],
        "seat": req["order"],
        "round": req["round"],
        "when": f"{when} {req['round']}",
        "action": action,
        "options": list(req["options"]) if choice_field else [],
        "choice_optional": action == "speak",
        "text": TEXT_NAMES[action] if text_field else None,
        "claim_roles": CLAIM_ROLES if claims else [],
        "rules": prompt["system"],
        "context": render_context(prompt["user"]),
        "attempt": len(attempts) + 1,
        "error": attempts[-1]["error"] if attempts else None,
        "answer_help": ANSWER_HELP,
    }


def render_context(user: str) -> str:
    """The player's prompt for reading: each section header ``[YOUR TASK: VOTE]`` as a Markdown
    heading (``## Your task: vote``), the rest as the model reads it (nothing is lost: the
    headers are upper case)."""
    lines = []
    for line in user.splitlines():
        if SECTION_HEADER.match(line):
            line = "## " + line[1:-1].capitalize()
        lines.append(line)
    return "\n".join(lines)


def answer_of(value: Any, payload: JSON) -> tuple[JSON | None, str, Rejection | None]:
    """A person's resume value as the model's structured answer (reasoning fields left empty), its
    raw text for the prompts log, or the rejection that re-asks them (same kinds as a model's)."""
    raw = (
        value
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    )
    if isinstance(value, str | int) and not isinstance(value, bool):
        value = {"text": value} if payload["text"] and isinstance(value, str) else {"choice": value}
    if not isinstance(value, dict):
        return None, raw, Rejection(AnswerKind.SCHEMA, f"the answer must be an object; {ANSWER_HELP}")
    fields: JSON = {**empty_answer(), **value}
    fields["choice"] = option_named(fields["choice"], payload["options"])
    try:
        return Answer.model_validate(fields).model_dump(mode="json"), raw, None
    except ValidationError as exc:
        rejection = rejection_of(exc, "choice") or Rejection(AnswerKind.SCHEMA, str(exc))
        return None, raw, rejection


def option_named(value: Any, options: Sequence[str]) -> Any:
    """The option a person means: a name (case and spaces forgiven), else an option's number
    (1-based); anything else as given, for the engine's checks to reject."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return value
    named = normalize_choice(value, options)
    if named is not None:
        return named
    text = str(value).strip()
    if text.isdigit() and 1 <= int(text) <= len(options):
        return options[int(text) - 1]
    return value


# ---- driving a game with people at the table -------------------------------------------------


def stream_answering(
    graph: Any, start: Any, cfg: RunnableConfig, respond: Respond | None, **kwargs: Any
) -> Iterator[Any]:
    """``graph.stream(start, cfg, **kwargs)`` to the end of the game: each time it pauses on
    people's turns, ``respond`` answers them (in seat order) and the game resumes with the answers."""
    while True:
        held: list[Any] = []
        for chunk in graph.stream(start, cfg, **kwargs):
            # From the pause on, a chunk may hold the writes of the step's finished turns, which no
            # checkpoint holds yet: the step is applied whole once the people have answered.
            if held or (isinstance(chunk, dict) and INTERRUPT in chunk):
                held.append(chunk)
            else:
                yield chunk
        pending = pending_turns(graph, cfg) if graph.checkpointer else []
        if not pending:
            yield from held
            return
        if respond is None:
            return
        start = Command(resume={turn.id: respond(turn.value) for turn in pending})


def pending_turns(graph: Any, cfg: RunnableConfig) -> list[Interrupt]:
    """The people's turns a paused game waits on, in seat order."""
    pending: list[Interrupt] = list(graph.get_state(cfg).interrupts)
    return sorted(pending, key=lambda turn: int(turn.value.get("seat", 0)))


class InputClosed(KeyboardInterrupt):
    """The terminal's input ended at a person's prompt: the game stops as on Ctrl-C, checkpointed."""


class TerminalSeat:
    """Answers people's turns at the terminal: shows the context, asks for the text, the choice and
    a claim where the action has them, and asks again until the input is one it can take."""

    def __init__(self, console: Console, read: Callable[[str], str] | None = None):
        self.console = console
        self.read = read or (lambda prompt: console.input(prompt))
        self.shown_rules: set[str] = set()

    def __call__(self, payload: JSON) -> JSON:
        self.show(payload)
        answer: JSON = {}
        if payload["text"]:
            answer["text"] = self.ask_text(payload["text"])
        if payload["options"]:
            answer["choice"] = self.ask_choice(payload["options"], payload["choice_optional"])
        if payload["claim_roles"] and answer.get("text"):
            answer["claim"] = self.ask_claim(payload["claim_roles"])
        return answer

    def show(self, payload: JSON) -> None:
        """The turn's header, the rules on a person's first turn, the context, any rejection."""
        out = self.console.print
        player = payload["player"]
        out(Rule(f"[bold]Your turn, {player}[/] · {payload['when']} · {payload['action']}", style="cyan"))
        if player not in self.shown_rules:
            self.shown_rules.add(player)
            out(Text("Rules", style="bold cyan"))
            out(Text(payload["rules"]))
        for line in payload["context"].splitlines():
            heading = line.startswith("## ")
            out(Text(line[3:] if heading else line, style="bold cyan" if heading else ""))
        if payload["error"]:
            out(Text(f"Your last answer was not taken: {payload['error']}", style="bold red"))

    def ask(self, prompt: str) -> str:
        """One line of input; the end of input stops the game like Ctrl-C."""
        try:
            return self.read(prompt).strip()
        except EOFError:
            raise InputClosed from None

    def ask_text(self, name: str) -> str:
        """The speech, message or plan: any non-empty line."""
        while True:
            text = self.ask(f"[bold]Your {name}:[/] ")
            if text:
                return text
            self.console.print("Write a few words (one line).")

    def ask_choice(self, options: Sequence[str], optional: bool) -> str | None:
        """One of the options, by number or by name; with ``optional``, an empty line is none."""
        for number, option in enumerate(options, 1):
            self.console.print(f"  {number}) {option}", highlight=False, markup=False)
        none = "; Enter for no one" if optional else ""
        return self.pick(f"[bold]Your choice[/] (number or name{none}): ", options, optional, "an option")

    def ask_claim(self, roles: Sequence[str]) -> str | None:
        """The role these words claim publicly, by number or name, or none."""
        listed = ", ".join(f"{n} {role}" for n, role in enumerate(roles, 1))
        prompt = f"[bold]Claim a role[/] with these words? ({listed}; Enter for none): "
        return self.pick(prompt, roles, True, "a role")

    def pick(self, prompt: str, options: Sequence[str], optional: bool, what: str) -> str | None:
        """Ask until the line names one of ``options`` (or is empty, where that is allowed)."""
        while True:
            text = self.ask(prompt)
            if not text and optional:
                return None
            chosen = option_named(text, options)
            if chosen in options:
                return str(chosen)
            hint = f"type a number 1-{len(options)} or a name" + (", or Enter" if optional else "")
            self.console.print(f"{text!r} is not {what}: {hint}.", markup=False)
