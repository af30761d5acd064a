"""Transcripts as prompt text: compressed rounds, rounds in full, and the claims ledger.

Every player-written word goes through ``safety.quote_text`` and appears only inside a quoted line;
every other line is written by the engine in a fixed format (``prompts.anchors``). Labels never
depend on the call (no "current"/"so far"), so a round's text stays byte-identical from call to
call and the transcript extends a cached prompt prefix instead of rewriting it.
"""

from __future__ import annotations

from collections.abc import Sequence

from mafia.context.compression import PENDING, line_claims, outcome_tied, result_line, seat_order
from mafia.context.extraction import extract
from mafia.context.safety import quote_text
from mafia.context.schemas import CompressedRoundSummary, DayRoundTranscript, SpeechLine
from mafia.context.summary_items import summary_story
from mafia.context.transcript import RoundEntry
from mafia.game.events import ColdSummary
from mafia.prompts import anchors

NO_ROUNDS = "No day has been played yet."
COMPRESSED_LABEL = "Earlier days, one line each (facts only):"
VERBATIM_LABEL = "Recent days, in full:"
DIGEST_LABEL = "Previous days, role claims in full, other speeches as who accused or nominated whom:"
PICKED_LABEL = "Picked by the summariser:"
TRIMMED_LABEL = "Earlier speeches, words trimmed for length:"


def speech_line(line: SpeechLine) -> str:
    """A discussion speech as one safe quoted line."""
    return anchors.format_speech(line.speaker, quote_text(line.text), line.nomination, line.claim)


def defense_line(line: SpeechLine) -> str:
    return anchors.format_defense(line.speaker, quote_text(line.text), line.claim)


def last_words_line(line: SpeechLine) -> str:
    return anchors.format_last_words(line.speaker, quote_text(line.text), line.claim)


def trimmed_note(
    lines: Sequence[SpeechLine], seats: Sequence[str], bare: bool = False, by_seat: bool = False
) -> str:
    """Speeches dropped under the token budget, kept as facts: nominations, accusations, claims
    (``bare``: nominations only, when the words can be recalled and the claims ledger holds the
    claims; ``by_seat`` also: speakers and nominees as seat numbers)."""
    if bare and by_seat:
        order = seat_order(seats)
        said = [
            f"{order[x.speaker] + 1}>{order[x.nomination] + 1}" if x.nomination else f"{order[x.speaker] + 1}"
            for x in lines
        ]
        return f"{TRIMMED_LABEL} by seat (10>8: seat 10 nominated seat 8): {', '.join(said)}"
    parts = []
    for line in lines:
        accused = extract(line.text, line.speaker, seats).accused if not bare else ()
        claimed = line_claims(line, seats) if not bare else ()
        facts = []
        if line.nomination:
            facts.append(f"nominated {line.nomination}")
        if accused:
            facts.append("accused " + ", ".join(accused))
        if claimed:
            facts.append("claimed " + ", ".join(claimed))
        parts.append(f"{line.speaker} ({'; '.join(facts)})" if facts else line.speaker)
    return f"{TRIMMED_LABEL} {', '.join(parts)}"


def verbatim_round(
    tr: DayRoundTranscript, seats: Sequence[str], trimmed: int = 0, bare: bool = False, by_seat: bool = False
) -> list[str]:
    """One round in full: dawn, speeches (the first ``trimmed`` reduced to facts), votes, words."""
    lines = [anchors.format_day_header(tr.round_number)]
    if tr.round_number <= 1 and tr.night_kill is None:
        lines.append("No night kill before Day 1.")
    else:
        lines.append(anchors.format_night_death(tr.round_number - 1, tr.night_kill))
    lines.append("Speeches:")
    if trimmed:
        lines.append(trimmed_note(tr.speeches[:trimmed], seats, bare, by_seat))
    lines.extend(speech_line(s) for s in tr.speeches[trimmed:])
    if tr.vote_outcome == PENDING:  # the state names the step: the day's lines only grow
        return lines
    if tr.votes:
        lines.append(anchors.format_ballots("Votes", [(b.voter, b.target) for b in tr.votes]))
    lines.append(f"Vote result: {tr.vote_outcome}")  # the ballots above give the counts
    if tr.revote_outcome is not None:
        lines.append("Defense speeches:")
        lines.extend(defense_line(s) for s in tr.defense_speeches)
        if tr.revote:
            pairs = [(b.voter, b.target) for b in tr.revote]
            lines.append(anchors.format_ballots("Revote votes", pairs))
        if tr.revote_outcome != PENDING:
            lines.append(f"Revote result: {tr.revote_outcome}")
    if tr.last_words is not None:
        lines.append(last_words_line(tr.last_words))
    return lines


def _accusation_lines(lines: Sequence[SpeechLine], seats: Sequence[str]) -> list[str]:
    """Whom each line nominated or accused, one engine line per pair in speaking order; a
    nomination (an engine fact) says so, not merely "accused"."""
    pairs: dict[tuple[str, str], bool] = {}  # (speaker, target) -> nominated
    for line in lines:
        if line.nomination and line.nomination != line.speaker:
            pairs[(line.speaker, line.nomination)] = True
        for target in extract(line.text, line.speaker, seats).accused:
            if target != line.speaker:
                pairs.setdefault((line.speaker, target), False)
    return [anchors.format_accusation(a, t, nominated=n) for (a, t), n in pairs.items()]


def digest_round(tr: DayRoundTranscript, seats: Sequence[str]) -> list[str]:
    """One round as ``verbatim_round`` lays it out with most words left out: its night's death,
    the speeches that claim a role in full (a claim's reported results are in its words), who the
    other speeches, defenses and last words accused or nominated, and every ballot and result.
    What a player needs of the day before at a fraction of the speeches' length."""
    lines = verbatim_round(tr, seats)[:2]
    spoken = [*tr.speeches, *tr.defense_speeches, *([tr.last_words] if tr.last_words else [])]
    claiming = [line for line in spoken if line_claims(line, seats)]
    lines.extend(speech_line(line) for line in claiming if line in tr.speeches)
    lines.extend(defense_line(line) for line in claiming if line in tr.defense_speeches)
    lines.extend(last_words_line(line) for line in claiming if line is tr.last_words)
    lines.extend(_accusation_lines([x for x in spoken if x not in claiming], seats))
    if tr.votes:
        lines.append(anchors.format_ballots("Votes", [(b.voter, b.target) for b in tr.votes]))
    lines.append(f"Vote result: {tr.vote_outcome}")
    if tr.revote:
        lines.append(anchors.format_ballots("Revote votes", [(b.voter, b.target) for b in tr.revote]))
    if tr.revote_outcome is not None:
        lines.append(f"Revote result: {tr.revote_outcome}")
    return lines


def compressed_round(summary: CompressedRoundSummary) -> list[str]:
    """One older round as one line of facts: the night's death, each vote's outcome with who
    voted with whom, and who nominated the players it eliminated or tied (claims are in the claims
    ledger, which covers every round). A quiet day reads
    "Day 4: no night kill; no elimination (all skipped)."
    """
    k = summary.round_number
    parts = []
    if summary.night_death is not None:
        parts.append(f"Night {k - 1} killed {summary.night_death}")
    elif k > 1:
        parts.append("no night kill")
    parts.append(summary.vote_line or summary.vote_result)
    if summary.defense_note:
        parts.append(summary.defense_note)
    parts.extend(f"{n.nominee} nominated by {', '.join(n.nominators)}" for n in summary.nominations)
    return [f"{anchors.format_day_header(k)} {'; '.join(parts)}."]


def seat_round(tr: DayRoundTranscript, seats: Sequence[str], ballots: bool = True) -> list[str]:
    """One older round as its bare facts, ballots by seat number (under
    ``anchors.format_seat_legend``): the night's death, each vote's outcome and who voted for whom
    (not with ``ballots`` False); a quiet day reads "Day 4: no elimination." The nominations and
    claims of ``compressed_round`` are left to recall and the claims ledger."""
    k = tr.round_number
    parts = [f"Night {k - 1} killed {tr.night_kill}"] if tr.night_kill is not None else []
    votes, revote = (tr.votes, tr.revote) if ballots else ([], [])
    parts.append(result_line(tr.vote_outcome, votes, seats, by_seat=True))
    if outcome_tied(tr.vote_outcome):
        parts.append("revote: " + result_line(tr.revote_outcome or PENDING, revote, seats, by_seat=True))
    return [f"{anchors.format_day_header(k)} {'; '.join(parts)}."]


def _span(entries: Sequence[RoundEntry]) -> str:
    first, last = entries[0].number, entries[-1].number
    return f"Day {first}" if first == last else f"Days {first}-{last}"


def recalled_lines(compressed: Sequence[RoundEntry], unballoted: int, recalled: int) -> list[str]:
    """What stands for the oldest days' facts once a token budget had no room for them: their
    ballots (``unballoted`` days), then the days themselves (``recalled``) are in the record."""
    lines = []
    if recalled:
        lines.append(
            f"{_span(compressed[:recalled])}: left out for length; recall finds them in your record."
        )
    if unballoted > recalled:
        gone = compressed[recalled:unballoted]
        lines.append(f"{_span(gone)}: ballots left out for length; recall finds them in your record.")
    return lines


def _compressed_lines(entry: RoundEntry) -> list[str]:
    return compressed_round(entry.summary())


def _seat_lines(entry: RoundEntry) -> list[str]:
    return seat_round(entry.transcript, entry.seats)


def _unballoted_lines(entry: RoundEntry) -> list[str]:
    return seat_round(entry.transcript, entry.seats, ballots=False)


def _digest_lines(entry: RoundEntry) -> list[str]:
    return digest_round(entry.transcript, entry.seats)


def _verbatim_lines(entry: RoundEntry) -> list[str]:
    return verbatim_round(entry.transcript, entry.seats)


def claims_ledger(entries: Sequence[RoundEntry]) -> str:
    """Every role claim made so far, with the day it was first made (never dropped)."""
    seen: dict[tuple[str, str], int] = {}
    for entry in entries:
        for claim in entry.claims():
            seen.setdefault(claim, entry.number)
    lines = [anchors.format_claim(p, r, d) for (p, r), d in seen.items()]
    return "\n".join(["Role claims so far:", *(lines or [anchors.NONE])])


def summary_label(through: int) -> str:
    """The header of the summary block: every line in it is the engine's, and quotes are claims."""
    return (
        f"Summary of Days 1-{through}, every line written by the engine from the log "
        "(a quoted passage is that player's words: their claim, not a fact):"
    )


def summary_block(summary: ColdSummary, entries: Sequence[RoundEntry]) -> list[str]:
    """A logged summary as prompt lines: each covered day's engine line (``compressed_round``),
    then the items the summariser picked, as the engine words them (``summary_items``)."""
    covered = [e for e in entries if e.number <= summary.through]
    lines = [summary_label(summary.through)]
    for entry in covered:
        lines.extend(entry.lines("compressed", _compressed_lines))
    story = summary_story(summary, entries)
    if story:
        lines.append(PICKED_LABEL)
        lines.extend(story)
    return lines


def transcript_body(
    compressed: Sequence[RoundEntry],
    verbatim: Sequence[RoundEntry],
    *,
    all_rounds: Sequence[RoundEntry],
    trimmed_speeches: int = 0,
    bare_trimmed: bool = False,
    ledger: bool = True,
    summary: ColdSummary | None = None,
    by_seat: bool = False,
    speeches_by_seat: bool = False,
    unballoted: int = 0,
    recalled: int = 0,
    digested: Sequence[RoundEntry] = (),
) -> str:
    """The transcript: the summary of the oldest days (policies with summaries), compressed days,
    then the ``digested`` days (speeches as who accused whom), then recent days in full, then the
    claims ledger.

    Under a tight token budget the compressed days may be written ``by_seat`` (``seat_round``),
    the ``unballoted`` oldest of them without their ballots and the ``recalled`` oldest left out,
    for lines saying where they are."""
    if not compressed and not digested and not verbatim:
        return NO_ROUNDS
    blocks: list[str] = []
    if summary is not None:
        blocks.append("\n".join(summary_block(summary, all_rounds)))
    if compressed:
        lines = [COMPRESSED_LABEL]
        if by_seat:
            lines.append(anchors.format_seat_legend(compressed[0].seats))
        lines.extend(recalled_lines(compressed, unballoted, recalled))
        for i, entry in enumerate(compressed[recalled:], recalled):
            if i < unballoted:
                lines.extend(entry.lines("unballoted", _unballoted_lines))
            elif by_seat:
                lines.extend(entry.lines("by_seat", _seat_lines))
            else:
                lines.extend(entry.lines("compressed", _compressed_lines))
        blocks.append("\n".join(lines))
    if digested:
        lines = [DIGEST_LABEL]
        for entry in digested:
            lines.extend(entry.lines("digest", _digest_lines))
        blocks.append("\n".join(lines))
    if verbatim:
        lines = [VERBATIM_LABEL]
        last = len(verbatim) - 1
        for i, entry in enumerate(verbatim):
            if i == last and trimmed_speeches:
                tr = entry.transcript
                lines.extend(
                    verbatim_round(tr, entry.seats, trimmed_speeches, bare_trimmed, speeches_by_seat)
                )
            else:
                lines.extend(entry.lines("verbatim", _verbatim_lines))
        blocks.append("\n".join(lines))
    if ledger:
        blocks.append(claims_ledger(all_rounds))
    return "\n\n".join(blocks)
