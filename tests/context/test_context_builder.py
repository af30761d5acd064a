"""build_context: every section from the player's view, tasks, budget, stability, token counts."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import HumanMessage, SystemMessage

from logbuilder import (
    LogBuilder,
    build_case,
    context_cases,
    play_random,
    seven_day2_speeches,
    seven_to_day2,
)
from mafia.context import ContextPolicy, RenderedPrompt, build_context, build_memory
from mafia.context.builder import OWN_ALLOWANCE, SEPARATOR, SHARED
from mafia.context.facts import missing_facts
from mafia.context.memory import memory_text
from mafia.context.policy import policy_by_name
from mafia.context.tokens import count_tokens, encode_count, safe_chunks
from mafia.context.views import player_view
from mafia.game.actions import ActionKind
from mafia.game.events import NightResolution
from mafia.game.rules import SKIP, Role
from mafia.models.house.board import assess
from mafia.models.house.prompt_reading import read_prompt
from mafia.prompts import anchors

CASES = context_cases()
ROLE_SECTIONS = {Role.MAFIA: "mafia_info", Role.GODFATHER: "mafia_info", Role.DETECTIVE: "investigations"}


def names(prompt: RenderedPrompt) -> list[str]:
    return [s.name for s in prompt.sections]


def section(prompt: RenderedPrompt, name: str) -> str:
    found = prompt.section(name)
    assert found is not None, f"no {name} section"
    return found.text


def targets(prompt: RenderedPrompt) -> list[str] | None:
    m = anchors.TARGETS_LINE.search(prompt.user)
    return anchors.split_names(m["targets"]) if m else None


def render(key: tuple[ActionKind, Role], policy: ContextPolicy | None = None) -> RenderedPrompt:
    return build_case(CASES[key], policy or ContextPolicy())


class TestContextBuilder:
    @pytest.mark.parametrize("key", sorted(CASES, key=str), ids=str)
    def test_all_sections_in_order(self, key: tuple[ActionKind, Role]) -> None:
        action, role = key
        prompt = render(key)
        # The table's rules, the public record, the player's identity, then what is theirs alone.
        expected = ["rules", "transcript", "state", "identity"]
        if role in ROLE_SECTIONS:
            expected.append(ROLE_SECTIONS[role])
        if action in (ActionKind.DEFENSE, ActionKind.REVOTE):
            expected.append("defense")
        expected += ["memory", "task"]
        assert names(prompt) == expected
        assert [s.stable for s in prompt.sections] == [n in ("rules", "identity") for n in expected]
        assert prompt.system == section(prompt, "rules")
        assert prompt.user.endswith(section(prompt, "task"))
        headers = [line for line in prompt.user.split("\n") if anchors.SECTION_HEADER.match(line)]
        assert headers[-1] == anchors.format_task_header(action.value)

    def test_identity_with_persona_and_playbook(self) -> None:
        events, player, action, _ = CASES[(ActionKind.SPEAK, Role.DOCTOR)]
        prompt = build_context(events, player, action)
        identity = section(prompt, "identity")
        assert anchors.format_identity("Player 4", "Doctor") in identity
        persona = next(e for e in events if getattr(e, "player", None) == "Player 4").persona  # type: ignore[attr-defined]
        assert anchors.format_persona(persona) in identity
        assert "You play for the Town" in identity and "protect" in identity.lower()

    def test_mafia_partner_and_kill_history(self) -> None:
        prompt = render((ActionKind.VOTE, Role.MAFIA))
        info = section(prompt, "mafia_info")
        assert anchors.format_partners([("Player 5", True)]) in info.split("\n")
        assert "Team kills: Night 1: Player 7 (killed)" in info

    def test_mafia_with_dead_partner(self) -> None:
        prompt = render((ActionKind.NIGHT_KILL, Role.MAFIA))
        info = section(prompt, "mafia_info")
        assert anchors.format_partners([("Player 5", False)]) in info.split("\n")
        assert "All your partners are dead" in info
        assert targets(prompt) == ["Player 2", "Player 3", "Player 4", SKIP]

    def test_detective_results(self) -> None:
        prompt = render((ActionKind.INVESTIGATE, Role.DETECTIVE))
        found = anchors.RESULT_LINE.finditer(section(prompt, "investigations"))
        results = [(m["night"], m["target"], m["result"]) for m in found]
        assert results == [("1", "Player 5", "Mafia")]
        assert "Investigated so far: Player 5 (Night 1: Mafia)" in section(prompt, "task")
        assert targets(prompt) == ["Player 1", "Player 2", "Player 4", "Player 5"]

    def test_detective_with_no_results_yet(self) -> None:
        log = LogBuilder(["Mafia", "Town", "Detective", "Doctor", "Town"])
        log.night_zero().start_day()
        prompt = build_context(log.events, "Player 3", ActionKind.SPEAK)
        assert section(prompt, "investigations") == f"{anchors.INVESTIGATIONS}\nNo investigations yet."
        assert anchors.RESULT_LINE.search(prompt.user) is None

    def test_current_state_ground_truth(self) -> None:
        prompt = render((ActionKind.VOTE, Role.TOWN))
        state = section(prompt, "state")
        assert anchors.format_round("Day", 2) in state
        assert anchors.format_living(["Player 1", "Player 2", "Player 3", "Player 4", "Player 5"]) in state
        assert anchors.format_dead([("Player 6", "voted day 1"), ("Player 7", "night 1")]) in state
        # A ballot's task lists the nominees; the state names them only while speeches go on.
        assert anchors.NOMINEES_LINE.search(state) is None
        assert anchors.format_targets(["Player 1", "Player 2", "Player 5", SKIP]) in section(prompt, "task")
        speech_state = section(render((ActionKind.SPEAK, Role.MAFIA)), "state")
        assert anchors.NOMINEES_LINE.search(speech_state) is not None
        assert "Speaking order today: " in speech_state

    @pytest.mark.parametrize(
        ("key", "expected"),
        [
            ((ActionKind.SPEAK, Role.MAFIA), ["Player 1", "Player 2", "Player 3", "Player 4"]),
            ((ActionKind.VOTE, Role.TOWN), ["Player 1", "Player 2", "Player 5", SKIP]),
            ((ActionKind.REVOTE, Role.DOCTOR), ["Player 2", "Player 5", SKIP]),
            ((ActionKind.MAFIA_ROUND1, Role.MAFIA), ["Player 2", "Player 3", "Player 4", SKIP]),
            ((ActionKind.MAFIA_ROUND2, Role.MAFIA), ["Player 2", "Player 3", "Player 4", SKIP]),
            ((ActionKind.PROTECT, Role.DOCTOR), ["Player 1", "Player 2", "Player 3", "Player 4", "Player 5"]),
            ((ActionKind.DEFENSE, Role.TOWN), None),
            ((ActionKind.LAST_WORDS, Role.MAFIA), None),
            ((ActionKind.NIGHT_ZERO, Role.MAFIA), None),
        ],
    )
    def test_action_prompts_and_valid_targets(
        self, key: tuple[ActionKind, Role], expected: list[str] | None
    ) -> None:
        prompt = render(key)
        assert anchors.TASK_LINE.search(prompt.user)["action"] == key[0].value.upper()  # type: ignore[index]
        assert targets(prompt) == expected

    def test_night_kill_targets_exclude_every_mafia(self) -> None:
        for key in [k for k in CASES if k[0] in (ActionKind.MAFIA_ROUND1, ActionKind.MAFIA_ROUND2)]:
            found = targets(render(key))
            assert found is not None and "Player 1" not in found and "Player 5" not in found

    def test_nomination_rule_only_in_speak(self) -> None:
        for key in CASES:
            task = section(render(key), "task")
            assert ("You may nominate" in task) == (key[0] is ActionKind.SPEAK)

    def test_round2_sees_round1_proposals(self) -> None:
        info = section(render((ActionKind.MAFIA_ROUND2, Role.MAFIA)), "mafia_info")
        proposals = anchors.PROPOSAL_LINE.findall(info)
        assert [(s, t) for s, t, _ in proposals] == [("Player 1", "Player 3"), ("Player 5", "Player 4")]
        later = section(render((ActionKind.MAFIA_ROUND1, Role.MAFIA)), "mafia_info")
        assert [p[0] for p in anchors.PROPOSAL_LINE.findall(later)] == ["Player 1"]

    def test_night_zero_sees_earlier_strategies(self) -> None:
        prompt = render((ActionKind.NIGHT_ZERO, Role.MAFIA))
        assert anchors.STRATEGY_LINE.findall(section(prompt, "mafia_info")) == [
            ("Player 1", "Open with 'honestly' to signal.")
        ]
        assert "No kill tonight" in section(prompt, "task")
        assert anchors.format_round("Night", 0) in section(prompt, "state")

    def test_defense_context_with_tied_players_and_vote_counts(self) -> None:
        prompt = render((ActionKind.DEFENSE, Role.MAFIA))
        defense = section(prompt, "defense")
        assert anchors.format_tied(["Player 2", "Player 5"]) in defense
        assert "Vote counts: Player 1 0, Player 2 2, Player 5 2, skip 1" in defense
        assert anchors.BALLOTS_LINE.search(defense)
        assert "(you speak 2nd; 1 has spoken)" in defense
        assert "tied with Player 2 at 2 votes each" in section(prompt, "task")
        revote = render((ActionKind.REVOTE, Role.TOWN))
        assert anchors.format_tied(["Player 2", "Player 5"]) in section(revote, "defense")
        assert len(anchors.DEFENSE_LINE.findall(section(revote, "transcript"))) == 2

    def test_investigation_and_last_words_prompts(self) -> None:
        task = section(render((ActionKind.INVESTIGATE, Role.DETECTIVE)), "task")
        assert "investigate one living player other than yourself" in task
        words = render((ActionKind.LAST_WORDS, Role.DETECTIVE))
        assert "You were voted out on Day 2" in section(words, "task")
        assert anchors.GAME_OVER_HINT not in words.user

    def test_game_over_hint_only_when_the_engine_says_so(self) -> None:
        ending = render((ActionKind.LAST_WORDS, Role.TOWN))
        assert anchors.GAME_OVER_HINT in section(ending, "task").split("\n")
        events, player, action, _ = CASES[(ActionKind.LAST_WORDS, Role.TOWN)]
        assert anchors.GAME_OVER_HINT not in build_context(events, player, action).user

    def test_protect_lists_history_without_outcome(self) -> None:
        task = section(render((ActionKind.PROTECT, Role.DOCTOR)), "task")
        assert "Your protections so far: Night 1: Player 3" in task
        assert "saved" not in task.split("Your protections so far:")[1]

    def test_recent_events_since_last_turn(self) -> None:
        prompt = render((ActionKind.SPEAK, Role.MAFIA), ContextPolicy(recent_events=True))
        recent = section(prompt, "recent_events").split("\n")
        assert recent[1] == "Since your last turn:"
        assert "- Night 1: Player 7 was killed." in recent
        assert "- Day 2: Player 2 spoke and nominated Player 1." in recent
        assert not any("Day 1" in line for line in recent)

    def test_recent_events_filter_private_fields(self) -> None:
        log = seven_day2_speeches(seven_to_day2())
        log.vote(dict.fromkeys(log.living, SKIP))
        log.night("Player 3", protect="Player 3", investigate="Player 1")
        resolution = next(e for e in reversed(log.events) if isinstance(e, NightResolution))
        assert resolution.intended_kill == "Player 3" and resolution.protected == "Player 3"
        log.start_day()
        for player in ("Player 1", "Player 4", "Player 2"):  # Mafia, Doctor, Town
            with_recent = ContextPolicy(recent_events=True)
            recent = section(
                build_context(log.events, player, ActionKind.SPEAK, with_recent), "recent_events"
            )
            night = [line for line in recent.split("\n") if line.startswith("- Night 2")]
            assert night == ["- Night 2: no one was killed."]
            assert "protect" not in recent and "intend" not in recent

    def test_private_information_never_reaches_other_players(self) -> None:
        log = seven_day2_speeches(seven_to_day2())
        town = build_context(log.events, "Player 2", ActionKind.VOTE)
        text = town.system + town.user
        for secret in (
            "Signal agreement",
            "Player 7 takes notes",
            "Check Player 5.",
            "Protect Player 3",
            "Player 1 reasons about",
            "Team kills",
        ):
            assert secret not in text
        assert anchors.PROPOSAL_LINE.search(text) is None
        assert anchors.RESULT_LINE.search(text) is None
        assert "Player 2 reasons about" in text  # its own reasoning is in its memory

    def test_prompt_depends_only_on_the_players_view(self) -> None:
        for events, player, action, game_over in CASES.values():
            own = player_view(events, player)
            full = build_context(events, player, action, game_over=game_over)
            assert build_context(own, player, action, game_over=game_over).user == full.user

    def test_transcript_rendering(self) -> None:
        log = seven_day2_speeches(seven_to_day2())
        log.vote(dict.fromkeys(log.living, SKIP))
        log.night()
        log.start_day()
        log.speak("Player 3", 'Watch this: "quoted" words.', "Player 5")
        transcript = section(build_context(log.events, "Player 4", ActionKind.SPEAK), "transcript")
        lines = transcript.split("\n")
        assert (
            "Day 1: Player 6 eliminated (Player 1, Player 2, Player 5, Player 7 voted Player 6; "
            "Player 4, Player 6 voted Player 2; the rest skipped); Player 6 nominated by Player 1."
        ) in lines
        assert anchors.format_day_header(2) in lines and anchors.format_day_header(3) in lines
        said = anchors.SPEECH_LINE.findall(transcript)
        assert ("Player 3", "Watch this: 'quoted' words.", "Player 5") in said
        assert lines[lines.index("Role claims so far:") - 2].startswith("- Player 3 said: ")  # no vote yet
        assert "- Player 3 claimed Detective (day 2)" in lines

    def test_memory_text(self) -> None:
        events, player, action, _ = CASES[(ActionKind.PROTECT, Role.DOCTOR)]
        prompt = build_context(events, player, action)
        body = section(prompt, "memory")
        assert body == anchors.MEMORY + "\n" + memory_text(build_memory(player_view(events, player), player))
        assert anchors.format_protections([(1, "Player 3")]) in body.split("\n")
        assert body.count("\n- ") == 2  # the last two reasonings

    def test_messages(self) -> None:
        prompt = render((ActionKind.VOTE, Role.TOWN))
        system, human = prompt.messages()
        assert isinstance(system, SystemMessage) and system.content == prompt.system
        assert isinstance(human, HumanMessage) and human.content == prompt.user


class TestPrefixStability:
    def test_stable_sections_are_byte_identical_across_a_players_calls(self) -> None:
        log = play_random(4, players=9, rounds=5)
        identities: dict[str, set[str]] = {}
        systems: set[str] = set()
        for cut in range(20, len(log.events), 17):
            for player in log.seats:
                prompt = build_context(log.events[:cut], player, ActionKind.VOTE)
                systems.add(prompt.system)
                identities.setdefault(player, set()).add(section(prompt, "identity"))
        assert len(systems) == 1  # the rules: the same for every player, all game
        assert all(len(found) == 1 for found in identities.values())
        assert len({s for found in identities.values() for s in found}) == len(log.seats)

    def test_a_budget_trims_the_shared_record_alike_for_every_player(self) -> None:
        """Under ``layered`` the shared record's trims are decided without the player's own part:
        players at the same step, with own parts of very different sizes, get the same text up to
        the end of the state, whether the record was trimmed or not."""
        log = play_random(1, players=12, rounds=4, words=60)
        layered = policy_by_name("layered")
        speeches = [i for i, e in enumerate(log.events) if type(e).__name__ == "Speech"]
        trimmed_steps = 0
        for cut in speeches[::3]:
            prompts = [build_context(log.events[:cut], p, ActionKind.VOTE, layered) for p in log.seats]
            heads = {p.system + "\n" + p.user[: p.user.index(anchors.IDENTITY)] for p in prompts}
            assert len(heads) == 1, (cut, [p.trimmed for p in prompts])
            own = [sum(s.tokens for s in p.sections if s.name not in ("rules", *SHARED)) for p in prompts]
            assert max(own) - min(own) >= 60  # memory, role information: the players' own parts differ
            trimmed_steps += all(any(t.startswith("speech of") for t in p.trimmed) for p in prompts)
        assert trimmed_steps >= 3  # the record was trimmed at some of the steps, alike for all

    def test_players_at_the_same_moment_share_rules_and_transcript(self) -> None:
        """The public record comes before anything a player owns, so a ballot's prompt opens with
        the same text for every voter (a provider caches it once)."""
        events, _, action, _ = CASES[(ActionKind.VOTE, Role.TOWN)]
        prompts = [build_context(events, p, action) for p in ("Player 1", "Player 2", "Player 3")]
        heads = {p.system + "\n" + p.user[: p.user.index(anchors.IDENTITY)] for p in prompts}
        assert len(heads) == 1 and anchors.TRANSCRIPT in next(iter(heads))
        assert anchors.STATE in next(iter(heads))

    def test_system_holds_only_the_stable_sections(self) -> None:
        prompt = render((ActionKind.SPEAK, Role.TOWN))
        stable = [s.text for s in prompt.sections if s.stable]
        assert prompt.system == stable[0] and prompt.system.startswith(anchors.RULES)
        assert prompt.stable_tokens == sum(s.tokens for s in prompt.sections if s.stable)


class TestPolicy:
    def test_default_policy_name(self) -> None:
        assert ContextPolicy().name == "window2"
        assert ContextPolicy(full_transcript=True).name == "full"
        assert ContextPolicy(token_budget=900).name == "window2-budget900"
        assert ContextPolicy(name="mine").name == "mine"
        with pytest.raises(ValueError):
            ContextPolicy(verbatim_rounds=0)

    def test_full_transcript_policy(self) -> None:
        log = play_random(9, players=7, rounds=5)
        days = [e.round for e in log.events if type(e).__name__ == "DayStarted"]
        prompt = build_context(log.events, log.seats[0], ActionKind.VOTE, ContextPolicy(full_transcript=True))
        transcript = section(prompt, "transcript")
        assert "Earlier days" not in transcript
        assert all(anchors.format_day_header(d) in transcript.split("\n") for d in days)

    def test_budget_trims_oldest_hot_material_first(self) -> None:
        log = play_random(2, players=9, rounds=4, words=40)
        log.start_day() if log.winner() is None else None
        speeches = [e for e in log.events if type(e).__name__ == "Speech"]
        cut = log.events.index(speeches[-1])
        speaker = speeches[-1].speaker  # type: ignore[attr-defined]
        loose = build_context(log.events[:cut], speaker, ActionKind.SPEAK, ContextPolicy(recent_events=True))
        policy = ContextPolicy(token_budget=1, recent_events=True)
        tight = build_context(log.events[:cut], speaker, ActionKind.SPEAK, policy)
        # The shared record as far as the own part's allowance needs (earlier verbatim days, today's
        # speeches, then its facts written shorter, none lost: a policy without recall drops no
        # fact), the role's advice (over the whole budget, before any fact would go), then the
        # player's own part (older reasonings, the recent digest).
        stages = [
            "compressed day",
            "speech of",
            "earlier days by seat number",
            "speaking order by seat",
            "role advice",
            "oldest reasoning in memory",
            "recent events",
            "over budget",
        ]
        order = [next(i for i, stage in enumerate(stages) if t.startswith(stage)) for t in tight.trimmed]
        assert order == sorted(order) and set(order) == set(range(len(stages))), tight.trimmed
        assert tight.system == loose.system  # frozen sections are never trimmed
        assert section(tight, "task") == section(loose, "task")
        # The identity keeps who the player is and their persona, without the role's advice.
        advice = section(loose, "identity").split("\n")[3:]
        assert advice and section(tight, "identity").split("\n") == section(loose, "identity").split("\n")[:3]
        # The state only says today's speaking order as the seat order it is.
        tight_state, loose_state = (section(p, "state").split("\n") for p in (tight, loose))
        assert [x for x in tight_state if "Speaking order" not in x] == [
            x for x in loose_state if "Speaking order" not in x
        ]
        assert "the living in seat order from " in section(tight, "state")
        assert tight.section("recent_events") is None
        tight_memory, loose_memory = section(tight, "memory"), section(loose, "memory")
        assert "Your last reasonings:" in loose_memory and "Your last reasonings:" not in tight_memory
        assert tight_memory == loose_memory.split("\nYour last reasonings:")[0]  # facts and beliefs kept
        assert "Earlier speeches, words trimmed for length" in section(tight, "transcript")
        cold = [ln for ln in section(loose, "transcript").split("\n") if re.match(r"Day \d+: .", ln)]
        days = [line.split(":")[0] for line in cold]
        assert cold and all(re.search(rf"^{d}: ", section(tight, "transcript"), re.M) for d in days)
        # Cold days are written by seat number, and every fact of them is kept.
        assert missing_facts(log.events[:cut], speaker, f"{tight.system}\n\n{tight.user}") == []
        assert tight.total_tokens < loose.total_tokens

    def test_votes_always_get_the_full_current_round(self) -> None:
        events, player, action, _ = CASES[(ActionKind.VOTE, Role.TOWN)]
        tight = build_context(events, player, action, ContextPolicy(token_budget=1))
        said = anchors.SPEECH_LINE.findall(section(tight, "transcript"))
        assert [s[0] for s in said] == ["Player 2", "Player 3", "Player 4", "Player 5", "Player 1"]
        assert not any(t.startswith("speech of") for t in tight.trimmed)

    def test_optional_parts_can_be_switched_off(self) -> None:
        policy = ContextPolicy(claims_ledger=False, recent_reasonings=1)
        assert policy.name == "window2-reasonings1"
        prompt = render((ActionKind.VOTE, Role.TOWN), policy)
        assert prompt.section("recent_events") is None
        assert "Role claims so far" not in prompt.user
        memory = section(prompt, "memory")
        assert memory.count("\n- ") == 1

    def test_budget_that_fits_trims_nothing(self) -> None:
        # Room for the whole prompt, and for the shared record beside the own part's allowance.
        prompt = render((ActionKind.SPEAK, Role.TOWN))
        shared = sum(s.tokens for s in prompt.sections if s.stable and s.name != "identity")
        shared += sum(s.tokens for s in prompt.sections if s.name in SHARED)
        fits = max(prompt.total_tokens, shared + OWN_ALLOWANCE)
        roomy = render((ActionKind.SPEAK, Role.TOWN), ContextPolicy(token_budget=fits))
        assert roomy.trimmed == () and roomy.user == prompt.user
        tight = render((ActionKind.SPEAK, Role.TOWN), ContextPolicy(token_budget=fits - 1))
        assert tight.trimmed != ()


class TestTokenAccounting:
    def test_section_counts_add_up_to_the_exact_message_counts(self) -> None:
        for key in CASES:
            prompt = render(key)
            assert prompt.total_tokens == encode_count(prompt.system) + encode_count(prompt.user)
            assert prompt.total_tokens == sum(n for _, n in prompt.token_counts())
            for sec in prompt.sections:
                last = sec.text == prompt.system.split(SEPARATOR)[-1] or prompt.user.endswith(sec.text)
                expected = encode_count(sec.text if last else sec.text + SEPARATOR)
                assert sec.tokens == expected, sec.name

    def test_token_counts_for_the_prompts_log(self) -> None:
        prompt = render((ActionKind.SPEAK, Role.TOWN))
        counts = dict(prompt.token_counts())
        assert set(counts) == set(names(prompt)) and all(n > 0 for n in counts.values())

    @settings(max_examples=200, deadline=None)
    @given(
        st.lists(
            st.text(alphabet=st.sampled_from(list("ab Z9.,'\"/\n\r\t -[]é\u2028\u00a0")), max_size=12),
            max_size=12,
        )
    )
    def test_line_cached_counting_is_exact(self, parts: list[str]) -> None:
        text = "\n".join(parts)
        assert count_tokens(text) == encode_count(text)
        assert "".join(safe_chunks(text)) == text


def test_lean_shows_the_day_before_as_claims_accusations_and_ballots() -> None:
    """Under ``lean`` the day before the window keeps its engine lines, its role claims in full and
    who each other speech accused or nominated, and none of those speeches' words."""
    log = seven_day2_speeches(seven_to_day2(), upto=1)
    user = build_context(log.events, "Player 3", ActionKind.SPEAK, policy=policy_by_name("lean")).user
    day1 = user.split("Day 1:\n", 1)[1].split("\n\n", 1)[0].split("\n")
    assert day1 == [
        "No night kill before Day 1.",
        '- Player 2 said: "Too early to tell. I am just a townie listening."',
        "- Player 1 nominated Player 6",
        "- Player 4 nominated Player 2",
        "- Player 6 accused Player 1",
        "Votes: Player 1 -> Player 6, Player 2 -> Player 6, Player 3 -> skip, Player 4 -> Player 2, "
        "Player 5 -> Player 6, Player 6 -> Player 2, Player 7 -> Player 6",
        "Vote result: Player 6 eliminated",
    ]
    assert "evasive" not in user and "Player 1 is rushing" not in user
    assert not missing_facts(log.events, "Player 3", user)
    # The house model reads the day as any model would: the accusations, the claim, the ballots.
    view = read_prompt(user)
    assert ("Player 4", "Player 2", 1, True) in view.accusations
    assert ("Player 6", "Player 1", 1, False) in view.accusations
    assert ("Player 1", "Player 6", 1) in view.votes
    assert any(s.speaker == "Player 2" and s.day == 1 for s in view.said)


def test_the_house_model_weighs_the_digest_as_the_speeches_it_stands_for() -> None:
    """The day before as digest lines (``lean``) or as speeches in full (``seed-window``): the house
    model's board from either prompt scores, presses and reasons the same (a nomination counts as
    one, an accusation as words accusing), so its choices differ only by its dice."""
    log = seven_day2_speeches(seven_to_day2(), upto=1)
    boards = []
    for name in ("lean", "seed-window"):
        prompt = build_context(log.events, "Player 3", ActionKind.SPEAK, policy=policy_by_name(name))
        boards.append(assess(read_prompt(prompt.system + "\n" + prompt.user)))
    digest, full = boards
    assert digest.score == full.score and digest.bandwagon == full.bandwagon
    assert {p: set(v) for p, v in digest.pointed_by.items()} == {
        p: set(v) for p, v in full.pointed_by.items()
    }
    assert {p: [r.note for r in v] for p, v in digest.reasons.items()} == {
        p: [r.note for r in v] for p, v in full.reasons.items()
    }
    assert digest.bandwagon["Player 1"] > 0  # pointed at on the digested day: the check sees it


def test_a_digest_needs_no_token_budget() -> None:
    with pytest.raises(ValueError, match="digest_rounds"):
        ContextPolicy(digest_rounds=1, token_budget=1200)
    with pytest.raises(ValueError, match="digest_rounds"):
        ContextPolicy(digest_rounds=-1)
    assert ContextPolicy(verbatim_rounds=1, digest_rounds=1).name == "window1-digest1"
