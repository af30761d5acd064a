"""Recall: a player's search over what it was entitled to see, for the ``recall`` tool of a turn.

The documents are built from the player's own view (``views.player_view`` through ``read_view``)
and nothing else, so a search can never return what the player may not see: public speeches,
defenses, last words, votes and deaths; its own night results (protections, investigations, the
team's kills); for the Mafia the night-zero plans and the team's talk; its own past reasoning;
and its beliefs pruned out of the prompt (``context.beliefs``). Ranking is BM25 (``bm25s``) over
lower-cased word tokens, digits kept, so "Player 3" finds Player 3; a policy with
``recall="semantic"`` ranks by sentence embeddings instead (``context.semantic``). Every hit carries its day
and speaker; player text stays quoted and made safe, as everywhere in a prompt.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from mafia.context import semantic
from mafia.context.beliefs import belief_entries
from mafia.context.record import GameRecord
from mafia.context.safety import quote_text
from mafia.context.semantic import SEMANTIC
from mafia.context.transcript import vote_outcome
from mafia.game.rules import on_mafia
from mafia.prompts import anchors
from mafia.records.call_kinds import RECALL_KIND as RECALL_KIND

MAX_RECALLS = 2
"""Searches a player may make in one turn; a further call is answered with a refusal."""
HITS = 3
RECALL_RESERVE = 200
"""Tokens a prompt under a token budget leaves free for the turn's recall calls and answers."""
NO_HITS = "No match in your record of earlier rounds."
REFUSED = f"Refused: at most {MAX_RECALLS} recalls a turn. Answer the task now with what you have."
_WORD = re.compile(r"\w+")
# Words that match everything and rank nothing.
_STOP = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "for",
        "from",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "she",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "with",
        "you",
        "your",
    )
)


class Recall(BaseModel):
    """Search your own record of earlier rounds (speeches, votes, deaths, your night results and
    notes) for an old fact; returns the best few matches with their day and speaker. At most 2 a
    turn; then answer the task."""

    query: str = Field(description="A few words: names, roles, what was said or done.")


@dataclass(frozen=True)
class Document:
    """One searchable entry of a player's record: when, who, and the line shown as a hit."""

    round: int
    speaker: str
    line: str


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens without stop words (digits kept: they tell players apart), and
    each pair of neighbouring words joined, so "Player 1" matches Player 1 before Player 12."""
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOP]
    return words + [f"{a}_{b}" for a, b in itertools.pairwise(words)]


def _said(label: str, speaker: str, text: str) -> str:
    return f'{label} {speaker}: "{quote_text(text)}"'


def documents(record: GameRecord) -> list[Document]:
    """Every entry of the player's view worth finding again, oldest first."""
    docs: list[Document] = []
    mafia = on_mafia(record.role)
    for plan in record.strategies if mafia else ():
        docs.append(Document(0, plan.speaker, _said("Night 0, team plan of", plan.speaker, plan.strategy)))
    for number in sorted(record.rounds):
        rnd = record.rounds[number]
        day = f"Day {number},"
        if rnd.day is not None and rnd.day.night_deaths:
            docs.append(Document(number, "", anchors.format_night_death(number - 1, rnd.day.night_deaths)))
        for s in rnd.speeches:
            extra = (f" (nominated {s.nomination})" if s.nomination else "") + (
                f" (claims {s.claim})" if s.claim else ""
            )
            docs.append(Document(number, s.speaker, _said(f"{day} speech of", s.speaker, s.text) + extra))
        for vote in rnd.votes:
            label = "revote" if vote.revote else "vote"
            ballots = ", ".join(f"{b.voter} -> {b.target}" for b in vote.ballots)
            docs.append(Document(number, "", f"{day} {label}: {vote_outcome(vote)} ({ballots})."))
        for d in rnd.defenses:
            docs.append(Document(number, d.speaker, _said(f"{day} defense of", d.speaker, d.text)))
        if rnd.last_words is not None:
            w = rnd.last_words
            docs.append(Document(number, w.speaker, _said(f"{day} last words of", w.speaker, w.text)))
        night = f"Night {number},"
        for m in rnd.discussions:
            line = _said(f"{night} team talk of", m.speaker, m.message) + f" (proposed {m.target})"
            docs.append(Document(number, m.speaker, line))
        if mafia and rnd.mafia_vote is not None:
            docs.append(Document(number, "", f"{night} the team chose {rnd.mafia_vote.final_target}."))
        for p in rnd.protections:
            docs.append(Document(number, p.protector, f"{night} you protected {p.protected}."))
        for i in rnd.investigations:
            docs.append(Document(number, i.detective, f"{night} you checked {i.target}: {i.result}."))
    for _, thought in record.thoughts:
        text = " ".join(x for x in (thought.strategy, thought.reasoning) if x)
        if text:
            label = f"Round {thought.round}, your own {thought.action} reasoning:"
            docs.append(Document(thought.round, record.me, f'{label} "{quote_text(text)}"'))
    for belief in belief_entries(record):  # the player's own: a budget may have archived any
        docs.append(Document(belief.round, record.me, belief.line))
    return docs


def search(docs: Sequence[Document], query: str, k: int = HITS, ranking: bool | str = True) -> list[Document]:
    """The ``k`` documents ranked highest for ``query``, best first, ties in log order
    (deterministic): by BM25 (only those sharing a word with it), or with ``ranking`` "semantic"
    by their embeddings' similarity (``context.semantic``, the ``semantic`` extra)."""
    if ranking == SEMANTIC:
        return [docs[i] for i in semantic.rank([d.line for d in docs], query, k)]
    wanted = tokens(query)
    if not docs or not wanted:
        return []
    # Loaded on the first search: with numpy it is a tenth of a second at every start of a game,
    # and only policies with recall ever search.
    import bm25s

    corpus = [tokens(d.line) or ["_"] for d in docs]
    index = bm25s.BM25()
    index.index(corpus, show_progress=False)
    scores = [float(score) for score in index.get_scores(wanted)]
    order = sorted(range(len(docs)), key=lambda i: (-scores[i], i))
    return [docs[i] for i in order[:k] if scores[i] > 0]


def answer_text(hits: Sequence[str]) -> str:
    """The tool's answer: one line per hit, or a note that nothing matched."""
    return "\n".join(f"- {hit}" for hit in hits) if hits else NO_HITS
