"""Day tactics of the house model: speeches with nominations, ballots, defenses, last words.

Town (with the Doctor and Detective when not using their secrets) nominate and vote their top
suspect when the evidence clears a threshold and otherwise hold back; the Detective reveals a Mafia
finding (or its findings under pressure, to save a cleared player, or against a false claim) and
keeps reporting once out. The Mafia never name a partner: they push the town player the table
already doubts, and attack or counter a Detective claim that names one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mafia.game.rules import SKIP, Role, on_mafia
from mafia.models.house.phrasing import compose, line
from mafia.models.house.tactics import (
    FOLLOW_NOMINATE,
    FOLLOW_READ,
    FOLLOW_VOTE,
    Ctx,
    Decision,
    best,
    counterclaimer,
    danger_scores,
    decision_with,
    detective_report,
    exposing_claimants,
    gut_chance,
    is_early,
    listed_options,
    mafia_found_alive,
    names_only,
    nominate_threshold,
    plan_target,
    private_note,
    public_why,
    skip_option,
    vote_threshold,
)


def speak(ctx: Ctx) -> Decision:
    b, rng = ctx.board, ctx.rng
    cands = [c for c in names_only(listed_options(ctx)) if c != b.me]
    if on_mafia(b.role):
        cands = [c for c in cands if c not in b.partners]
    if ctx.sloppy():
        pick = rng.choice([*cands, None]) if cands else None
        core = [line(rng, "gut", t=pick)] if pick else [line(rng, "no_read")]
        speech = compose(rng, ctx.style, core, living=len(b.living))
        return decision_with({"text": speech, "choice": pick}, "Play it by ear.", "A quick, loose read.")
    said = _speak_mafia(ctx, cands) if on_mafia(b.role) else _speak_town(ctx, cands)
    speech = compose(rng, ctx.style, said.core, living=len(b.living))
    return decision_with({"text": speech, "choice": said.nomination}, said.strategy, said.reasoning)


@dataclass(slots=True)
class _Speech:
    """A day speech being built: its core sentences, the nomination, and the thinking behind it."""

    strategy: str
    core: list[str] = field(default_factory=list)
    nomination: str | None = None
    reasoning: str = ""


def _speak_town(ctx: Ctx, cands: list[str]) -> _Speech:
    """Town's speech: a Detective's reveal when it has reason to, a denial under pressure, then a
    nomination from a trusted Detective claim or from its own read."""
    b = ctx.board
    said = _Speech("Find the Mafia from claims, accusations and votes; hold back without evidence.")
    revealed = False
    if b.role == Role.DETECTIVE:
        revealed, cands = _detective_reveal(ctx, cands, said)
    if b.pressure and not revealed:
        _deny(ctx, said)
    if said.nomination is None:
        _back_trusted_claim(ctx, cands, said)
    if said.nomination is None:
        _town_nomination(ctx, cands, said)
    said.reasoning = said.reasoning or "I follow the evidence."
    return said


def _detective_reveal(ctx: Ctx, cands: list[str], said: _Speech) -> tuple[bool, list[str]]:
    """The Detective reveals its findings when they matter (or it is pressed, or the end is near)
    and calls the Mafia it found or a false claimant. Returns whether it revealed, and the
    candidates left to nominate (the players it cleared taken out)."""
    b, rng = ctx.board, ctx.rng
    found = mafia_found_alive(b, cands)
    liars = sorted(c for c in b.liars if c in cands)
    cleared = [t for t, r in b.my_results.items() if r == "Not Mafia"]
    endangered = [t for t in cleared if b.nominations_today[t] >= 2]
    if not _must_reveal(ctx, bool(found or liars or endangered)):
        return False, cands
    said.core += detective_report(ctx)
    said.strategy = "Reveal my findings so the town votes out the Mafia I found."
    if found:
        said.nomination = found[0]
        said.core.append(line(rng, "detective_call", t=said.nomination))
        said.reasoning = f"My investigation found {said.nomination} is Mafia."
    elif liars:
        said.nomination = liars[0]
        said.core.append(line(rng, "fake_detective", c=said.nomination))
        said.reasoning = f"{said.nomination} falsely claims to be the Detective."
    elif endangered:
        said.reasoning = f"{endangered[0]} is cleared by my investigation; I must save them."
    return True, [c for c in cands if b.my_results.get(c) != "Not Mafia"]


def _must_reveal(ctx: Ctx, findings_matter: bool) -> bool:
    """Whether the Detective speaks up: already out, findings that matter, pressed hard (or
    nominated with results to show), or few players left."""
    b = ctx.board
    return (
        b.i_claimed_detective
        or findings_matter
        or b.pressure >= 2
        or (b.nominations_today.get(b.me, 0) >= 1 and bool(ctx.view.results))
        or len(b.living) <= 4
    )


PRESSED_CLAIMS: dict[str, tuple[str, str]] = {
    Role.DOCTOR: ("doctor_claim", "Claim Doctor to survive the pressure; protect myself from now on."),
    Role.BODYGUARD: (
        "bodyguard_claim",
        "Claim Bodyguard to survive the pressure; my guards are worth more alive.",
    ),
}
"""The roles that claim themselves when pressed hard enough: the claim's lines and the strategy."""
LAST_CLAIMS: dict[str, str] = {Role.DOCTOR: "last_doctor", Role.BODYGUARD: "last_bodyguard"}
"""The lines a Town role's last words reveal it with (plain Town's otherwise; the Detective reports)."""


def _deny(ctx: Ctx, said: _Speech) -> None:
    """Deny under pressure; a role of ``PRESSED_CLAIMS`` pressed hard enough claims itself to survive."""
    b, rng = ctx.board, ctx.rng
    said.core.append(line(rng, "deny"))
    claim = PRESSED_CLAIMS.get(b.role)
    if claim is not None and b.pressure >= (2 if ctx.knobs.aggression > 0.7 else 3):
        said.core.append(line(rng, claim[0]))
        said.strategy = claim[1]


def _back_trusted_claim(ctx: Ctx, cands: list[str], said: _Speech) -> None:
    """Back the first trusted Detective claim that names a candidate Mafia."""
    b, rng = ctx.board, ctx.rng
    for claimant, target, result in b.findings:
        if result == "Mafia" and b.trust.get(claimant, 0.0) >= 0.6 and target in cands:
            said.core.append(line(rng, "support_claim", c=claimant))
            said.core.append(line(rng, "claim_target", t=target))
            said.nomination = target
            said.reasoning = f"{claimant}'s Detective claim named {target} Mafia; I trust it."
            return


def _town_nomination(ctx: Ctx, cands: list[str], said: _Speech) -> None:
    """Nominate the top suspect when the evidence clears the bar, else maybe a gut read early on,
    else (with nothing said yet) say there is no read."""
    b, rng = ctx.board, ctx.rng
    top = best(rng, cands, lambda p: b.total(p, FOLLOW_NOMINATE))
    gut = gut_chance(ctx)
    if top is not None and b.total(top, FOLLOW_NOMINATE) >= nominate_threshold(ctx):
        said.nomination = top
        said.core.append(line(rng, "accuse", t=top, why=public_why(b, top, rng)))
        said.reasoning = f"{top} is my top suspect: {private_note(b, top)}."
    elif top is not None and (is_early(b) or not b.nominations_today) and rng.random() < gut:
        said.nomination = top if b.total(top, FOLLOW_NOMINATE) > 0 else rng.choice(cands)
        said.core.append(line(rng, "gut", t=said.nomination))
        said.reasoning = f"Little evidence yet; a read on {said.nomination} draws reactions."
    elif not said.core:
        said.core.append(line(rng, "no_read"))
        said.reasoning = "Nothing stands out enough to nominate."


def _speak_mafia(ctx: Ctx, cands: list[str]) -> _Speech:
    """Mafia's speech: deny under pressure, keep up a fake Detective claim, answer a claim that
    exposes the team or back a partner's, else push the town player the table doubts."""
    b, rng = ctx.board, ctx.rng
    said = _Speech("Blend in as Town; steer suspicion onto town players, never onto my partners.")
    threats = [c for c in exposing_claimants(ctx) if c in cands]
    partner_claims = [p for p in b.detective_claims if p in b.partners]
    if b.pressure:
        said.core.append(line(rng, "deny"))
        if b.role == Role.GODFATHER:  # a check shows me as Town: invite one
            said.core.append(line(rng, "godfather_dare"))
            said.strategy = "Dare the Detective to check me: a check shows me as Town and clears me."
    if b.i_claimed_detective:
        _keep_fake_claim(ctx, cands, said)
    elif threats:
        _answer_claim(ctx, threats[0], bool(partner_claims), said)
    elif partner_claims:
        _back_partner_claim(ctx, partner_claims[0], cands, said)
    if said.nomination is None:
        _mafia_push(ctx, cands, said)
    said.reasoning = said.reasoning or "Keep suspicion away from my team."
    return said


def _keep_fake_claim(ctx: Ctx, cands: list[str], said: _Speech) -> None:
    """Keep up my fake Detective claim: report a "finding" on a town player and call for them."""
    b, rng, table = ctx.board, ctx.rng, ctx.table
    mine = [t for c, t, r in b.findings if c == b.me and r == "Mafia" and t in cands]
    target = mine[0] if mine else best(rng, cands, lambda p: table.total(p, FOLLOW_VOTE))
    said.core.append(line(rng, "detective_again"))
    if target is not None:
        said.core.append(line(rng, "finding", t=target, r="Mafia"))
        said.core.append(line(rng, "detective_call", t=target))
    said.nomination = target
    said.strategy = "Keep up my Detective claim and drive the town onto a town player."
    said.reasoning = f"My fake Detective story points at {target}."


def _answer_claim(ctx: Ctx, claimant: str, partner_claimed: bool, said: _Speech) -> None:
    """Nominate a Detective claimant who named one of us: counterclaim (the designated teammate
    most likely, and never when a partner already claimed), else attack the claim."""
    b, rng = ctx.board, ctx.rng
    designated = counterclaimer(ctx)
    chance = 0.25 + 0.5 * ctx.knobs.aggression
    if designated is not None:
        chance = 0.9 if designated == b.me else 0.1
    said.nomination = claimant
    if not partner_claimed and rng.random() < chance:
        said.core += [
            line(rng, "detective_intro"),
            line(rng, "finding", t=claimant, r="Mafia"),
            line(rng, "fake_detective", c=claimant),
        ]
        said.strategy = "Counterclaim Detective to discredit the real one."
        said.reasoning = f"{claimant} claims Detective and named one of us; a counterclaim muddies it."
    else:
        said.core.append(line(rng, "attack_claim", c=claimant))
        said.strategy = "Discredit the Detective claim that threatens my team."
        said.reasoning = f"{claimant}'s Detective claim exposes my team; attack its credibility."


def _back_partner_claim(ctx: Ctx, partner: str, cands: list[str], said: _Speech) -> None:
    """Back a partner's fake Detective claim by nominating the town player it named."""
    b, rng = ctx.board, ctx.rng
    named = [t for c, t, r in b.findings if c == partner and r == "Mafia" and t in cands]
    if named:
        said.nomination = named[0]
        said.core.append(line(rng, "support_claim", c=partner))
        said.core.append(line(rng, "claim_target", t=said.nomination))
        said.reasoning = f"Back my partner {partner}'s fake claim against {said.nomination}."


def _mafia_push(ctx: Ctx, cands: list[str], said: _Speech) -> None:
    """Push the town player the table doubts (or the planned, dangerous one) when it costs little,
    else maybe start the agreed push, else (with nothing said yet) stay quiet."""
    b, rng, table, aggr = ctx.board, ctx.rng, ctx.table, ctx.knobs.aggression
    danger = danger_scores(ctx)
    planned = plan_target(ctx, cands)

    def push_key(p: str) -> float:
        return table.total(p, FOLLOW_VOTE) + 0.4 * danger.get(p, 0.0) + 1.5 * (p == planned)

    push = best(rng, cands, push_key)
    if push is not None and table.total(push, FOLLOW_VOTE) >= nominate_threshold(ctx) - 0.3:
        said.nomination = push
        said.core.append(line(rng, "accuse", t=push, why=public_why(table, push, rng)))
        said.reasoning = f"The table already doubts {push}; pushing them costs us nothing."
    elif push is not None and rng.random() < (0.3 if is_early(b) else 0.15) + 0.2 * aggr:
        said.nomination = planned or push
        said.core.append(line(rng, "gut", t=said.nomination))
        said.reasoning = f"Start the agreed push on {said.nomination}."
    elif not said.core:
        said.core.append(line(rng, "no_read"))
        said.reasoning = "Stay quiet and let the town argue."


def vote(ctx: Ctx) -> Decision:
    b, rng = ctx.board, ctx.rng
    options = listed_options(ctx)
    names = [o for o in names_only(options) if o != b.me]
    listed_skip = skip_option(options)
    can_skip = listed_skip is not None
    skip = listed_skip or SKIP
    if on_mafia(b.role):
        names = [n for n in names if n not in b.partners]
    if ctx.sloppy():
        choice = rng.choice([*names, skip] if can_skip else names or options or [skip])
        return decision_with({"choice": choice}, "Go with the flow.", "A loose call.")
    if on_mafia(b.role):
        table, danger = ctx.table, danger_scores(ctx)
        top = best(rng, names, lambda p: table.total(p, FOLLOW_VOTE) + 0.3 * danger.get(p, 0.0))
        choice = top if top is not None else skip
        reasoning = (
            f"Voting {top}: a town player going out helps us."
            if top
            else "Only my partners are on the ballot: skip."
        )
        strategy = "Vote out town players, never my partners."
    else:

        def key(p: str) -> float:
            return b.total(p, FOLLOW_VOTE) + (1.0 if p == b.my_nomination_today else 0.0)

        top = best(rng, names, key)
        if top is not None and (key(top) >= vote_threshold(ctx) or not can_skip):
            choice = top
            reasoning = f"Voting {top}: {private_note(b, top)}."
        else:
            choice = skip
            reasoning = "No candidate is suspicious enough; skipping is safer."
        strategy = "Vote only on evidence; a wrong elimination helps the Mafia."
    if choice == skip and not can_skip and options:
        choice = options[0]
    return decision_with({"choice": choice}, strategy, reasoning)


def defense(ctx: Ctx) -> Decision:
    b, rng, aggr = ctx.board, ctx.rng, ctx.knobs.aggression
    core = [line(rng, "defense_intro")]
    strategy = "Clear my name and point the town at a better suspect."
    cands = [p for p in b.others if p not in b.partners]
    if b.role == Role.DETECTIVE:
        core += detective_report(ctx)
        strategy = "Reveal my findings: they are my best defense."
    elif b.role == Role.DOCTOR and rng.random() < 0.5 + 0.4 * aggr:
        core.append(line(rng, "doctor_claim"))
    elif on_mafia(b.role):
        threats = exposing_claimants(ctx)
        partner_claims = [p for p in b.detective_claims if p in b.partners]
        if threats and not partner_claims and rng.random() < 0.25 + 0.5 * aggr:
            c = threats[0]
            core += [line(rng, "detective_intro"), line(rng, "finding", t=c, r="Mafia")]
    if on_mafia(b.role):
        table, danger = ctx.table, danger_scores(ctx)
        tied = set(ctx.view.tied) or {p for p, n in b.nominations_today.items() if n > 0}
        target = best(
            rng,
            cands,
            lambda p: table.total(p, FOLLOW_VOTE) + 0.3 * danger.get(p, 0.0) + (p in tied),
        )
        why_board = table
    else:
        target = best(rng, cands, lambda p: b.total(p, FOLLOW_READ))
        why_board = b
    if target is not None:
        core.append(line(rng, "redirect", t=target, why=public_why(why_board, target, rng)))
    speech = compose(rng, ctx.style, core, living=len(b.living))
    reasoning = f"Deny, and redirect suspicion to {target}." if target else "Deny."
    return decision_with({"text": speech}, strategy, reasoning)


def last_words(ctx: Ctx) -> Decision:
    b, rng = ctx.board, ctx.rng
    core: list[str] = []
    cands = [p for p in b.others if p not in b.partners]
    if ctx.view.game_over:
        core.append(line(rng, "game_over"))
        if b.role == Role.DETECTIVE and ctx.view.results:
            core += detective_report(ctx)[1:]
        strategy = "The game is over; say goodbye."
        reasoning = "My elimination ends the game."
    elif on_mafia(b.role):
        table = ctx.table
        trusted = [c for c in b.detective_claims if c in cands]
        target = trusted[0] if trusted else best(rng, cands, lambda p: -table.total(p, FOLLOW_READ))
        if target is not None:
            core.append(line(rng, "last_mafia", t=target))
        strategy = "Leave the town confused: cast doubt on a trusted town player."
        reasoning = f"Accusing {target} spends town votes on a town player."
    else:
        if b.role == Role.DETECTIVE and ctx.view.results:
            core += detective_report(ctx)
        else:
            core.append(line(rng, LAST_CLAIMS.get(b.role, "last_town")))
        found = mafia_found_alive(b, cands)
        target = found[0] if found else best(rng, cands, lambda p: b.total(p, FOLLOW_READ))
        if found:
            core.append(line(rng, "detective_call", t=found[0]))
            reasoning = f"My investigation found {found[0]}: the town must vote them next."
        elif target is not None and b.total(target, FOLLOW_READ) > 0.5:
            core.append(line(rng, "last_read", t=target))
            reasoning = f"Point the town at my top suspect {target}: {private_note(b, target)}."
        else:
            core.append(line(rng, "last_none"))
            reasoning = "I have no strong read to leave behind."
        strategy = "Help the town with what I know before I go."
    speech = compose(rng, ctx.style, core, living=len(b.living))
    return decision_with({"text": speech}, strategy, reasoning)
