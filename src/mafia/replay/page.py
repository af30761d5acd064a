"""The replay as one self-contained HTML page: a day-by-day timeline, speeches with nominations and
claims, vote tables, deaths, and a switch that shows or hides the private entries (night actions,
thoughts, roles). A playback reveals the game event by event (play, pause, step forward and back,
speed; from the keyboard too), passing over the private events while they are hidden. Styles and
script are inlined and nothing is loaded, so the file opens offline.

The wording of announcements, vote tables and night outcomes is the terminal view's
(``mafia.commands.display``); this module only lays them out as HTML."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from importlib.resources import files
from typing import Any

from mafia.commands.display import (
    OUTCOME_TEXT,
    is_night,
    mafia_round_label,
    night_death_text,
    night_outcome_text,
    setup_text,
    vote_rows,
)
from mafia.commands.html_page import document
from mafia.game import events as ev
from mafia.game.rules import Role
from mafia.run.record import shown

GENERATOR = '<meta name="generator" content="mafia replay">'  # marks a page this module wrote

# The playback's controls; page.js drives them and their keys (named in each title).
PLAYBACK = (
    '<div class="playback" id="playback" role="toolbar" aria-label="Playback">'
    '<button type="button" id="pb-start" title="Back to the first event (Home)">|&#9664;</button>'
    '<button type="button" id="pb-back" title="Step back one event (Left arrow)">&#9664;</button>'
    '<button type="button" id="pb-play" title="Play or pause (Space)">&#9654; Play</button>'
    '<button type="button" id="pb-next" title="Step forward one event (Right arrow)">&#9654;</button>'
    '<button type="button" id="pb-end" title="Show the whole game (End)">&#9654;|</button>'
    '<label for="pb-speed">Speed</label><select id="pb-speed" title="Events a second ([ and ] to change)">'
    '<option value="0.5">0.5/s</option><option value="1" selected>1/s</option>'
    '<option value="2">2/s</option><option value="4">4/s</option><option value="8">8/s</option></select>'
    '<span id="pb-where" aria-live="polite"></span></div>'
)


@dataclass
class Section:
    """One stretch of the timeline: night 0 (with the setup), a day, a night, or the game's end."""

    key: str  # the anchor: night-0, day-3, night-3, game-over
    title: str
    kind: str  # "day", "night" or "end"
    parts: list[str] = field(default_factory=list)
    summary: str = ""  # the public outcome shown in the timeline


def render_page(
    started: ev.GameStarted,
    events: Sequence[ev.EventBase],
    *,
    title: str,
    run: Mapping[str, Any],
    private: bool,
    roles: Mapping[str, Role],
) -> str:
    """The page of ``events`` (already chosen: a view, a day). ``private`` says they include the
    private ones, so the page gets its switch; ``roles`` tags speakers behind it."""
    sections = _sections(events, roles if private else {})
    count = sum(1 for event in events if _is_private(event))
    head = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="setup">{escape(setup_text(started))} Seats: {escape(", ".join(started.players))}.</p>',
    ]
    models = _models(run)
    if models:
        head.append(f'<p class="models">{escape(models)}</p>')
    if private:
        head.append(
            '<label class="switch" for="show-private"><input type="checkbox" id="show-private" '
            f'autocomplete="off"> Show private night actions and thoughts ({count})</label>'
        )
    else:
        head.append('<p class="note">Public view: this page holds only what the whole table saw.</p>')
    head.append(PLAYBACK)
    head.append(_timeline(sections))
    body = "\n".join(
        f'<section id="{s.key}" class="{s.kind}"><h2>{escape(s.title)}</h2>\n'
        + "\n".join(s.parts)
        + "\n</section>"
        for s in sections
    )
    return document(
        title=f"Mafia replay: {title}",
        generator=GENERATOR,
        css=_asset("page.css"),
        header="\n".join(head),
        main=body,
        js=_asset("page.js"),
    )


def _asset(name: str) -> str:
    return files("mafia.replay").joinpath(name).read_text(encoding="utf-8")


def _models(run: Mapping[str, Any]) -> str:
    model = run.get("model")
    if not model:
        return ""
    seats = run.get("seat_models") or {}
    extra = "".join(f", seat {seat}: {shown(spec)}" for seat, spec in seats.items())
    return f"Models: {shown(model)}{extra}."


def _timeline(sections: Sequence[Section]) -> str:
    links = [
        f'<a class="{s.kind}" href="#{s.key}">{escape(s.title)}'
        + (f' <span class="death">{escape(s.summary)}</span>' if s.summary else "")
        + "</a>"
        for s in sections
    ]
    return '<nav class="timeline">' + "".join(links) + "</nav>"


def _sections(events: Iterable[ev.EventBase], roles: Mapping[str, Role]) -> list[Section]:
    sections: list[Section] = []
    step = 0
    for event in events:
        if isinstance(event, ev.GameStarted):
            continue
        key, title, kind = _place(event)
        if not sections or sections[-1].key != key:
            sections.append(Section(key, title, kind))
            if key == "night-0":
                sections[-1].parts.append(f'<p class="entry quiet">{escape(NIGHT_ZERO)}</p>')
        section = sections[-1]
        section.parts.append(_step(event, roles, step))
        step += 1
        summary = _summary(event)
        if summary:
            section.summary = summary
    return sections


NIGHT_ZERO = "The roles are dealt and the Mafia meet in secret; there is no kill on night zero."


def _is_private(event: ev.EventBase) -> bool:
    """Whether the page shows the event (or part of it) only behind the switch."""
    if isinstance(event, ev.NightResolution):
        return event.intended_kill is not None or event.protected is not None
    return event.AUDIENCE is not None


def _place(event: ev.EventBase) -> tuple[str, str, str]:
    """The section an event belongs to: (anchor, title, kind)."""
    if isinstance(event, ev.GameOver):
        return "game-over", "Game over", "end"
    if event.round == 0:
        return "night-0", "Night 0", "night"
    if is_night(event):
        return f"night-{event.round}", f"Night {event.round}", "night"
    return f"day-{event.round}", f"Day {event.round}", "day"


def _summary(event: ev.EventBase) -> str:
    """An event's public outcome for the timeline: a death."""
    if isinstance(event, ev.Elimination):
        return f"{event.player} voted out"
    if isinstance(event, ev.NightResolution):
        return f"{' and '.join(event.deaths)} killed" if event.deaths else "no one killed"
    return ""


def _who(name: str, roles: Mapping[str, Role]) -> str:
    """A player's name, with their role as a private tag when the page has roles."""
    role = roles.get(name)
    tag = (
        f'<span class="badge role private {role.name.lower()}">{escape(role.value)}</span>'
        if role is not None
        else ""
    )
    return f'<span class="speaker">{escape(name)}</span>{tag}'


def _words(text: str) -> str:
    return f'<q class="words">{escape(text)}</q>'


def _badges(claim: Role | None, nomination: str | None = None) -> str:
    out = f'<span class="badge claim">claims {escape(claim.value)}</span>' if claim else ""
    if nomination:
        out += f'<span class="badge nomination">nominates {escape(nomination)}</span>'
    return out


def _step(event: ev.EventBase, roles: Mapping[str, Role], number: int) -> str:
    """One event as a step of the playback: revealed in order, one at a time; a step seen by no
    one but some players is marked so the playback passes over it while private entries are
    hidden."""
    private = " private-step" if event.AUDIENCE is not None else ""
    return f'<div class="step{private}" data-step="{number}">{_entry(event, roles)}</div>'


def _entry(event: ev.EventBase, roles: Mapping[str, Role]) -> str:
    """One event as HTML; a private event is marked so the switch hides it."""
    body = _body(event, roles)
    if event.AUDIENCE is None:
        return body
    if body.startswith("<details"):
        return body
    return f'<div class="entry private"><span class="tag">private</span>{body}</div>'


def _night_choice(event: ev.RoleNightEvent, roles: Mapping[str, Role]) -> str:
    """A role's night choice as its row tells it, with what the chooser learned in bold."""
    learned = event.learned()
    told = ":" if learned is None else f": <strong>{escape(learned)}</strong>."
    chosen = escape(event.chosen())
    return f"{_who(event.chooser(), roles)} {event.verb()} {chosen}{told} {_words(event.reason())}"


def _body(event: ev.EventBase, roles: Mapping[str, Role]) -> str:
    match event:
        case ev.RoleAssigned():
            partners = f" (partners: {', '.join(event.partners)})" if event.partners else ""
            persona = f" Persona: {event.persona}" if event.persona else ""
            return escape(f"{event.player} is dealt {event.role.value}{partners}.{persona}")
        case ev.NightZeroStrategy():
            return f"{_who(event.speaker, roles)} plans: {_words(event.strategy)}"
        case ev.DayStarted():
            lines = []
            if event.round > 1:
                style = "death-line" if event.night_deaths else "quiet"
                lines.append(f'<p class="entry {style}">{escape(night_death_text(event))}</p>')
            lines.append(f'<p class="living">Living: {escape(", ".join(event.living))}</p>')
            lines.append(f'<p class="order">Speaking order: {escape(", ".join(event.speaking_order))}</p>')
            return "\n".join(lines)
        case ev.Speech() | ev.DefenseSpeech() | ev.LastWords():
            return _spoken(event, roles)
        case ev.VoteRound():
            return _vote(event)
        case ev.Elimination():
            return f'<p class="entry death-line">{escape(event.player)} is eliminated by the town.</p>'
        case ev.MafiaDiscussion():
            return (
                f"Mafia {escape(mafia_round_label(event))}: {_who(event.speaker, roles)} proposes "
                f"{escape(event.target)}: {_words(event.message)}"
            )
        case ev.MafiaVote():
            ballots = ", ".join(f"{b.voter}: {b.target}" for b in event.votes)
            return escape(f"Mafia target {event.final_target}, decided by {event.decided_by} ({ballots}).")
        case ev.RoleNightEvent():
            return _night_choice(event, roles)
        case ev.NightResolution():
            return _night(event)
        case ev.Thought():
            return _thought(event, roles)
        case ev.Fallback():
            return escape(
                f"{event.player}, {event.action}: answer rejected ({event.error}); {event.applied} applied."
            )
        case ev.TextTruncated():
            return escape(
                f"{event.player}, {event.action}: {event.field} cut from {event.length} to {event.limit}."
            )
        case ev.RunChanged():
            return escape(
                f"The run was changed on resume: {event.setting} from {event.before} to {event.after}."
            )
        case ev.GameOver():
            return _game_over(event)
        case _:
            return escape(type(event).__name__)


# Each kind of public words: its class on the page and its label after the speaker.
_SPOKEN = {
    "speech": ("speech", ""),
    "defense": ("defense", " <em>(defense)</em>"),
    "last_words": ("last-words", " <em>(last words)</em>"),
}


def _spoken(event: ev.Speech | ev.DefenseSpeech | ev.LastWords, roles: Mapping[str, Role]) -> str:
    css, label = _SPOKEN[event.type]
    nomination = event.nomination if isinstance(event, ev.Speech) else None
    return (
        f'<p class="entry {css}">{_who(event.speaker, roles)}{label}: {_words(event.text)}'
        f"{_badges(event.claim, nomination)}</p>"
    )


def _vote(event: ev.VoteRound) -> str:
    title = "Revote" if event.revote else "Vote"
    if event.outcome == "no_vote":
        return f'<p class="entry">{escape(OUTCOME_TEXT["no_vote"])}</p>'
    rows = "".join(
        f'<tr><td>{escape(option)}</td><td class="n">{votes}</td><td>{escape(", ".join(voters))}</td></tr>'
        for option, votes, voters in vote_rows(event)
    )
    table = (
        f'<table class="votes"><caption>{title}: {escape(", ".join(event.nominees))}</caption>'
        f"<thead><tr><th>Candidate</th><th>Votes</th><th>Voters</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    if event.outcome == "eliminated":
        return table
    return table + f'<p class="entry">{escape(OUTCOME_TEXT.get(event.outcome, event.outcome))}</p>'


def _night(event: ev.NightResolution) -> str:
    victims = ev.named_deaths(event.deaths)
    death = (
        f"{victims} {'are' if len(event.deaths) > 1 else 'is'} killed." if victims else "No one is killed."
    )
    public = f'<p class="entry {"death-line" if victims else "quiet"}">{escape(death)}</p>'
    if not _is_private(event):
        return public
    detail = escape(night_outcome_text(event))
    return (
        public + f'<div class="entry private"><span class="tag">private</span>Night outcome: {detail}.</div>'
    )


def _thought(event: ev.Thought, roles: Mapping[str, Role]) -> str:
    items = [("Observations", event.observations), ("Strategy", event.strategy)]
    items += [(f"Suspects {s.player} ({s.level})", s.reasoning) for s in event.suspicions]
    items += [("Relationship", r) for r in event.relationships]
    items += [("Note", note) for note in event.pattern_notes]
    details = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items if v)
    return (
        f'<details class="entry private thought"><summary><span class="tag">thought</span>'
        f"{_who(event.player, roles)} after {escape(event.action)}: {escape(event.reasoning)}</summary>"
        f"<dl>{details}</dl></details>"
    )


def _game_over(event: ev.GameOver) -> str:
    rows = "".join(
        f'<tr><td>{escape(r.player)}</td><td class="{r.role.name.lower()}">{escape(r.role.value)}</td></tr>'
        for r in event.roles
    )
    return (
        f'<p class="entry"><strong>Winner: {escape(event.winner)}</strong>: {escape(event.reason)}.</p>'
        '<table class="roles"><thead><tr><th>Player</th><th>Role</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )
