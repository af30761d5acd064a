"""Night tactics of the house model: the Mafia's plan and kill, the Doctor, the Detective.

The Mafia's night-zero plan names a day push and a designated counterclaimer that partners adopt;
kills go to the most dangerous town player (a claimed Detective first); a partner backs the earlier
proposal unless its own best target is another that its read ranks as high, so a team whose reads
differ goes to Round 2, where the best-supported proposal wins and a split goes to the lowest seat. The Doctor
protects a credible claimed Detective, else itself or a vocal town voice; the Detective checks its
top uninvestigated suspect.
"""

from __future__ import annotations

from collections import Counter

from mafia.game.rules import SKIP
from mafia.models.house.tactics import (
    FOLLOW_READ,
    Ctx,
    Decision,
    best,
    counterclaimer,
    danger_scores,
    decision_with,
    listed_options,
    names_only,
    plan_target,
    private_note,
    skip_option,
)

_SIGNALS = (
    "agree with each other only after a third player has",
    "never defend each other twice in a row",
    "open with a question, not an accusation",
)
_COVERS = ("play quiet Town", "act as a careful analyst", "follow the loudest accuser")


def night_zero(ctx: Ctx) -> Decision:
    b, rng = ctx.board, ctx.rng
    team = b.team
    cands = [p for p in b.others if p not in team]
    target = plan_target(ctx, cands) or (rng.choice(cands) if cands else None)
    order = [p for p in b.living if p in team] or sorted(team)
    who = counterclaimer(ctx) or order[rng.randrange(len(order))]
    push = f"Day push: {target}. " if target else ""
    plan = (
        f"{push}Cover: {rng.choice(_COVERS)}. Signal: {rng.choice(_SIGNALS)}. "
        f"If a Detective claim names one of us, {who} counterclaims Detective."
    )
    reasoning = f"A shared push on {target} and one designated counterclaimer keep us aligned."
    return decision_with({"text": plan}, "Coordinate day pushes and cover stories.", reasoning)


def _kill_options(ctx: Ctx) -> tuple[list[str], str | None, str]:
    """The nameable kill targets, the listed skip option (if any), and the choice when no one is
    named (that skip option, else "skip")."""
    b = ctx.board
    options = listed_options(ctx)
    skip = skip_option(options)
    named = [o for o in names_only(options) if o != b.me and o not in b.partners]
    return named, skip, skip or SKIP


def _loose_kill(ctx: Ctx, named: list[str], fallback: str) -> str | None:
    """A careless pick when this choice is a sloppy one (see ``Ctx.sloppy``), else None."""
    if not ctx.sloppy():
        return None
    return ctx.rng.choice(named) if named else fallback


def _kill_choice(ctx: Ctx, named: list[str]) -> str | None:
    danger = danger_scores(ctx)
    return best(ctx.rng, named, lambda p: danger.get(p, 0.0))


def reads_differ(danger: dict[str, float], mine: str | None, theirs: str) -> bool:
    """Whether my own best target is another than a partner's proposal and ranks at least as high
    in my read: then I propose my own instead of backing theirs (and the team may need Round 2)."""
    return mine is not None and mine != theirs and danger.get(mine, 0.0) >= danger.get(theirs, float("-inf"))


def _kill_why(ctx: Ctx, target: str) -> str:
    b = ctx.board
    if target in b.detective_claims:
        return "they claim Detective"
    if target in b.doctor_claims:
        return "they claim Doctor"
    return "they are the most dangerous town voice"


def mafia_round1(ctx: Ctx) -> Decision:
    b = ctx.board
    named, skip, fallback = _kill_options(ctx)
    loose = _loose_kill(ctx, named, fallback)
    if loose is not None:
        return decision_with({"choice": loose, "text": f"Let us take {loose}."}, "Kill.", "A loose pick.")
    allowed = (*named, skip)
    earlier = [p for p in ctx.view.proposals if p.speaker in b.partners and p.target in allowed]
    danger = danger_scores(ctx)
    mine = best(ctx.rng, named, lambda p: danger.get(p, 0.0))
    if earlier and not reads_differ(danger, mine, earlier[0].target):
        choice = earlier[0].target
        message = f"I back {earlier[0].speaker}: {choice}, so we agree at once."
        reasoning = f"Following {earlier[0].speaker}'s proposal reaches consensus in Round 1."
    elif mine is not None:
        choice = mine
        message = f"Let us take {mine}: {_kill_why(ctx, mine)}."
        reasoning = f"{mine} is the biggest threat: {_kill_why(ctx, mine)}."
    else:
        choice, message, reasoning = fallback, "No one to take tonight.", "No legal target."
    return decision_with(
        {"choice": choice, "text": message}, "Remove the most dangerous town player.", reasoning
    )


def mafia_round2(ctx: Ctx) -> Decision:
    b = ctx.board
    named, skip, fallback = _kill_options(ctx)
    loose = _loose_kill(ctx, named, fallback)
    if loose is not None:
        return decision_with({"choice": loose}, "Kill.", "A loose pick.")
    team = b.team
    proposals = [p for p in ctx.view.proposals if p.speaker in team and p.target in (*named, skip)]
    if proposals and ctx.view.action != "night_kill":
        counts = Counter(p.target for p in proposals)
        top = max(counts.values())
        leaders = [p.target for p in proposals if counts[p.target] == top]
        if len(set(leaders)) == 1:
            choice = leaders[0]
            reasoning = f"{choice} has the most Round 1 support: consensus."
        else:  # a split: each holds to the one its own read ranks highest (its own proposal on a
            # tie); if the team still splits, the lowest seat's choice stands
            danger = danger_scores(ctx)
            own = next((p.target for p in proposals if p.speaker == b.me), None)
            choice = max(leaders, key=lambda t: (danger.get(t, float("-inf")), t == own))
            reasoning = f"{choice} is the most dangerous of the split proposals, as I read it."
    else:
        mine = _kill_choice(ctx, named)
        choice = mine if mine is not None else fallback
        reasoning = f"{choice} is the biggest threat." if mine else "No legal target."
    strategy = "Reach consensus on the most dangerous target."
    return decision_with({"choice": choice}, strategy, reasoning)


def protect(ctx: Ctx) -> Decision:
    b, rng = ctx.board, ctx.rng
    options = names_only(listed_options(ctx))
    if ctx.sloppy() and options:
        return decision_with({"choice": rng.choice(options)}, "Protect someone.", "A loose pick.")
    claimed = [c for c in b.detective_claims if c in options and c != b.me and c not in b.liars]
    if claimed:
        choice = max(claimed, key=lambda c: b.trust.get(c, 0.0))
        reasoning = f"{choice} claimed Detective; the Mafia will want them dead."
    elif b.me in options and (
        b.i_claimed_doctor or b.pressure >= 2 or len(b.living) <= 4 or rng.random() < 0.35
    ):
        choice = b.me
        reasoning = "Keep the Doctor alive: protect myself."
    else:
        vocal = Counter(s.speaker for s, _ in b.readings if s.nomination)
        cands = [p for p in options if p != b.me]
        pick = best(rng, cands, lambda p: 0.3 * vocal[p] - b.total(p, FOLLOW_READ))
        choice = pick if pick is not None else (options[0] if options else b.me)
        reasoning = f"{choice} is a trusted, vocal town player the Mafia may target."
    return decision_with({"choice": choice}, "Keep the town's key players alive.", reasoning)


def guard(ctx: Ctx) -> Decision:
    """Guard a believed Detective or Doctor claim, else the most trusted vocal town player: the
    Mafia's likeliest targets, for whom the Bodyguard's life is a good trade."""
    b, rng = ctx.board, ctx.rng
    options = [o for o in names_only(listed_options(ctx)) if o != b.me]
    if ctx.sloppy() and options:
        return decision_with({"choice": rng.choice(options)}, "Guard someone.", "A loose pick.")
    claims = [*b.detective_claims, *b.doctor_claims]
    claimed = [c for c in claims if c in options and c not in b.liars]
    if claimed:
        choice = max(claimed, key=lambda c: b.trust.get(c, 0.0))
        reasoning = f"{choice} claimed a power role; the Mafia will want them dead."
    else:
        vocal = Counter(s.speaker for s, _ in b.readings if s.nomination)
        pick = best(rng, options, lambda p: 0.3 * vocal[p] - b.total(p, FOLLOW_READ))
        choice = pick if pick is not None else (options[0] if options else SKIP)
        reasoning = f"{choice} is a trusted, vocal town player the Mafia may target."
    return decision_with({"choice": choice}, "Stand in front of the town's key players.", reasoning)


def shoot(ctx: Ctx) -> Decision:
    """Shoot a player a believed check named Mafia, else one caught lying, else one suspected
    strongly (level 7 of 10 or more); otherwise hold the game's one shot (skip): a shot at the
    Town is one more night kill for the Mafia."""
    b, rng = ctx.board, ctx.rng
    options = [o for o in names_only(listed_options(ctx)) if o not in (b.me, SKIP)]
    if ctx.sloppy() and options:
        return decision_with({"choice": rng.choice([*options, SKIP])}, "Shoot or wait.", "A loose pick.")
    named = b.known_mafia | {t for c, t, r in b.findings if r == "Mafia" and c not in b.liars}
    for sure, why in ((named, "was found Mafia"), (b.liars, "was caught lying")):
        caught = [p for p in options if p in sure]
        if caught:
            choice = max(caught, key=lambda p: b.total(p, FOLLOW_READ))
            return decision_with(
                {"choice": choice}, "Spend the one shot on a sure target.", f"{choice} {why}."
            )
    suspects = [p for p in options if b.level(p) >= 7]
    if not suspects:
        return decision_with({"choice": SKIP}, "Keep the one shot for a sure target.", "No one is sure yet.")
    choice = max(suspects, key=lambda p: b.total(p, FOLLOW_READ))
    reasoning = f"{choice} is my strongest suspect: {private_note(b, choice)}."
    return decision_with({"choice": choice}, "Spend the one shot on the strongest suspect.", reasoning)


def investigate(ctx: Ctx) -> Decision:
    b, rng = ctx.board, ctx.rng
    options = [o for o in names_only(listed_options(ctx)) if o != b.me]
    if ctx.sloppy() and options:
        return decision_with({"choice": rng.choice(options)}, "Investigate.", "A loose pick.")
    unknown = [p for p in options if p not in b.my_results and p not in b.liars]
    choice = best(rng, unknown or options, lambda p: b.total(p, FOLLOW_READ))
    if choice is None:
        choice = b.others[0] if b.others else SKIP
    reasoning = f"{choice} is my most suspicious uninvestigated player: {private_note(b, choice)}."
    return decision_with({"choice": choice}, "Check the most suspicious unknown player.", reasoning)
