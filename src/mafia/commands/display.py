"""Live terminal view of a game: each event rendered with Rich as it is appended to the log.

Public events are always shown; private ones (night-zero plans, Mafia talk, protections,
investigations, fallbacks) only with ``reveal``, as a spectator with the full log would see them.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.rule import Rule
from rich.table import Table

from mafia.game import events as ev
from mafia.game.rules import ROLES

OUTCOME_TEXT = {
    "no_elimination": "No elimination.",
    "no_vote": "No nominations: no vote today.",
    "tie": "Tie: the tied players defend themselves, then everyone revotes.",
}


NIGHT_ACTIONS = {
    "mafia_round1",
    "mafia_round2",
    "night_kill",
    *(spec.night_action.value for spec in ROLES.values() if spec.night_action is not None),
}


def setup_text(event: ev.GameStarted) -> str:
    """The table in one line: seats, public role counts and the round cap."""
    return f"{len(event.players)} players: {event.composition()}. Round cap {event.round_cap}."


def night_death_text(event: ev.DayStarted) -> str:
    """The day's announcement of the night's deaths."""
    deaths = ev.named_deaths(event.night_deaths)
    if deaths is None:
        return "Nobody died in the night."
    return f"{deaths} {'were' if len(event.night_deaths) > 1 else 'was'} killed in the night."


def vote_rows(event: ev.VoteRound) -> list[tuple[str, int, list[str]]]:
    """A vote's table: each option with its votes and its voters, in the tally's order."""
    return [
        (c.option, c.votes, [b.voter for b in event.ballots if b.target == c.option]) for c in event.counts
    ]


def mafia_round_label(event: ev.MafiaDiscussion) -> str:
    """Which Mafia coordination step a proposal belongs to."""
    return "direct" if event.coordination_round == 0 else f"round {event.coordination_round}"


def night_outcome_text(event: ev.NightResolution) -> str:
    """The night's target, protection and death (private fields read as "none" when blanked)."""
    return (
        f"target {event.intended_kill or 'none'}, protected {event.protected or 'none'}: "
        f"{ev.named_deaths(event.deaths) or 'no one'} {'die' if len(event.deaths) > 1 else 'dies'}"
    )


def _claim(role: str | None) -> str:
    """The role a speaker publicly claimed with their words, as a tag after them."""
    return f" [magenta](claims {role})[/]" if role else ""


def is_night(event: ev.EventBase) -> bool:
    """Whether an event belongs to a night after night zero (its header is shown once)."""
    if isinstance(event, ev.Thought | ev.Fallback):
        return event.action in NIGHT_ACTIONS
    night = ev.MafiaDiscussion | ev.MafiaVote | ev.RoleNightEvent | ev.NightResolution
    return isinstance(event, night) and event.round > 0


def night_choice_text(event: ev.RoleNightEvent) -> str:
    """A role's night choice as its row tells it: "(doctor) Ann protects Bo", "(detective) Cy
    checks Di: Mafia" (what the chooser learned in cyan)."""
    learned = event.learned()
    colour, tail = ("green", "") if learned is None else ("cyan", f": {learned}")
    label = event.role().value.lower()
    return f"[dim {colour}]  ({label}) {event.chooser()} {event.verb()} {event.chosen()}{tail}[/]"


def _escaped(value: Any) -> Any:
    """A JSON value with every string escaped for Rich markup."""
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, dict):
        return {key: _escaped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_escaped(item) for item in value]
    return value


RESUMED_MARK = "Resumed: new play from here"


class GameView:
    """Prints events to a console; ``quiet`` shows only the start and the result."""

    def __init__(
        self, console: Console, *, reveal: bool = False, quiet: bool = False, thoughts: bool = False
    ) -> None:
        """``thoughts`` (with ``reveal``) also shows each player's private reasoning."""
        self.console = console
        self.reveal = reveal
        self.quiet = quiet
        self.thoughts = thoughts
        self.night_shown = 0

    def __call__(self, event: ev.EventBase) -> None:
        if self.quiet and not isinstance(event, ev.GameStarted | ev.GameOver):
            return
        if is_night(event) and event.round != self.night_shown:
            self.night_shown = event.round
            self.console.print(Rule(f"Night {event.round}", style="dim"))
        if event.AUDIENCE is not None and not self.reveal:
            return
        self.show(event)

    def resumed(self) -> None:
        """Mark where a resumed game's new play begins, below the game so far."""
        if not self.quiet:
            self.console.print(Rule(RESUMED_MARK, style="bold yellow"))

    def show(self, event: ev.EventBase) -> None:
        """Render one event (its texts are escaped: words such as "[/]" are shown, not read as styles)."""
        out = self.console.print
        event = ev.parse_event(_escaped(ev.dump_event(event)))
        match event:
            case ev.GameStarted():
                out(Rule(f"[bold]Mafia[/] — {event.game_id}"))
                out(setup_text(event))
            case ev.NightZeroStrategy():
                out(f"[dim red]  (night 0) {event.speaker} plans: {event.strategy}[/]")
            case ev.DayStarted():
                out(Rule(f"Day {event.round}"))
                if event.round > 1:
                    out(
                        f"[red]{night_death_text(event)}[/]"
                        if event.night_deaths
                        else night_death_text(event)
                    )
                out(f"[dim]Speaking order: {', '.join(event.speaking_order)}[/]")
            case ev.Speech():
                nomination = f" [yellow]→ nominates {event.nomination}[/]" if event.nomination else ""
                out(f"[bold]{event.speaker}[/]: {event.text}{_claim(event.claim)}{nomination}")
            case ev.DefenseSpeech():
                out(f"[bold]{event.speaker}[/] [italic](defense)[/]: {event.text}{_claim(event.claim)}")
            case ev.VoteRound():
                self._votes(event)
            case ev.Elimination():
                out(f"[bold red]{event.player} is eliminated by the town.[/]")
            case ev.LastWords():
                out(f"[bold]{event.speaker}[/] [italic](last words)[/]: {event.text}{_claim(event.claim)}")
            case ev.MafiaDiscussion():
                label = mafia_round_label(event)
                out(f"[dim red]  (mafia {label}) {event.speaker} → {event.target}: {event.message}[/]")
            case ev.MafiaVote():
                out(f"[dim red]  (mafia) target {event.final_target}, decided by {event.decided_by}[/]")
            case ev.RoleNightEvent():
                out(night_choice_text(event))
            case ev.NightResolution() if self.reveal:
                out(f"[dim]  (night) {night_outcome_text(event)}[/]")
            case ev.Thought() if self.thoughts:
                out(f"[dim blue]  (thought) {event.player}, {event.action}: {event.reasoning}[/]")
            case ev.Fallback():
                out(
                    f"[dim magenta]  (fallback) {event.player} {event.action}: {event.error}"
                    f" → {event.applied}[/]"
                )
            case ev.RunChanged():
                out(f"[yellow]  (run changed) {event.setting}: {event.before} → {event.after}[/]")
            case ev.GameOver():
                self._game_over(event)
            case _:
                pass

    def _votes(self, event: ev.VoteRound) -> None:
        title = "Revote" if event.revote else "Vote"
        if event.outcome == "no_vote":
            self.console.print(OUTCOME_TEXT["no_vote"])
            return
        table = Table(title=title, show_header=True, header_style="bold")
        table.add_column("Candidate")
        table.add_column("Votes", justify="right")
        table.add_column("Voters")
        for option, votes, voters in vote_rows(event):
            table.add_row(option, str(votes), ", ".join(voters))
        self.console.print(table)
        if event.outcome == "eliminated":
            return
        self.console.print(OUTCOME_TEXT.get(event.outcome, event.outcome))

    def _game_over(self, event: ev.GameOver) -> None:
        self.console.print(Rule("Game over"))
        self.console.print(f"[bold]Winner: {event.winner}[/] — {event.reason}.")
        table = Table(show_header=True, header_style="bold")
        table.add_column("Player")
        table.add_column("Role")
        for reveal in event.roles:
            style = "red" if reveal.role.value == "Mafia" else ""
            table.add_row(reveal.player, f"[{style}]{reveal.role.value}[/]" if style else reveal.role.value)
        self.console.print(table)
