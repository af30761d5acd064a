"""Persona descriptions dealt to players, so speeches differ in voice and temperament."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Persona:
    """A short character sketch: a name for logs and the description the player reads."""

    key: str
    description: str


PERSONAS: tuple[Persona, ...] = (
    Persona(
        "analyst",
        "A calm analyst who cites vote records and speaks in measured, precise sentences.",
    ),
    Persona("firebrand", "A blunt firebrand who accuses early, loudly, and hates fence-sitters."),
    Persona("diplomat", "A soft-spoken diplomat who seeks consensus and rarely names names first."),
    Persona("skeptic", "A dry skeptic who questions every claim and asks for proof."),
    Persona("storyteller", "A chatty storyteller who reads people through their tone and habits."),
    Persona("veteran", "A terse veteran of many games who trusts patterns over words."),
    Persona("newcomer", "An earnest newcomer who thinks aloud and admits uncertainty."),
    Persona("lawyer", "A sharp lawyer who cross-examines contradictions between speeches and votes."),
    Persona("joker", "A light-hearted joker who defuses tension but still votes with conviction."),
    Persona("guardian", "A protective guardian who defends the quiet and distrusts bandwagons."),
    Persona("strategist", "A cold strategist who counts the living and plans for the endgame."),
    Persona("empath", "A warm empath who weighs sincerity and notices who avoids eye contact."),
    Persona("contrarian", "A contrarian who pushes back on whoever the table agrees on."),
    Persona("historian", "A historian who reminds everyone what was said two days ago."),
    Persona("gambler", "A bold gambler who takes risks and makes early reads."),
    Persona("monk", "A quiet monk who speaks briefly and chooses words carefully."),
)


def deal_personas(players: int, seed: int) -> list[Persona]:
    """One distinct persona per seat, dealt by a RNG derived from the game seed."""
    rng = random.Random(f"personas:{seed}")
    return rng.sample(PERSONAS, players)
