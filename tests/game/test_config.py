"""Game config: a ConfigError for every unplayable config, naming the field and the bound."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mafia.game.rules import (
    ConfigError,
    GameConfig,
    RoleCounts,
    assign_roles,
    parse_role_counts,
    validate_config,
)


def _names(n: int) -> tuple[str, ...]:
    return tuple(f"N{k}" for k in range(1, n + 1))


def _validate(config: GameConfig) -> Callable[[], object]:
    return lambda: validate_config(config)


def _parse_then_validate(spec: dict[str, int], players: int) -> Callable[[], object]:
    return lambda: validate_config(GameConfig(players=players, roles=parse_role_counts(spec, players)))


@pytest.mark.parametrize(
    ("make", "field", "mentions"),
    [
        pytest.param(_validate(GameConfig(players=4)), "players", ["5", "16", "4"], id="4-seats"),
        pytest.param(_validate(GameConfig(players=17)), "players", ["5", "16", "17"], id="17-seats"),
        pytest.param(lambda: parse_role_counts({}, 17), "players", ["5", "16", "17"], id="parse-17-seats"),
        pytest.param(
            _validate(GameConfig(players=6, roles=RoleCounts(3, 1, 1, 1))),
            "roles.mafia",
            ["strictly fewer", "3 vs 3"],
            id="mafia-equal-others",
        ),
        pytest.param(
            _parse_then_validate({"mafia": 3}, 5),
            "roles.mafia",
            ["strictly fewer", "3 vs 2"],
            id="mafia-above-others",
        ),
        pytest.param(
            _parse_then_validate({"doctor": 2}, 9), "roles.doctor", ["0 or 1", "2"], id="two-doctors"
        ),
        pytest.param(
            _parse_then_validate({"detective": 3}, 12),
            "roles.detective",
            ["0 or 1", "3"],
            id="three-detectives",
        ),
        pytest.param(
            _validate(GameConfig(players=5, roles=RoleCounts(0, 1, 1, 3))),
            "roles.mafia",
            ["at least 1"],
            id="no-mafia",
        ),
        pytest.param(
            lambda: parse_role_counts({"werewolf": 1}, 7),
            "roles",
            ["werewolf", "mafia, detective, doctor, town"],
            id="unknown-role",
        ),
        pytest.param(
            lambda: parse_role_counts({"doctor": -1}, 7),
            "roles.doctor",
            ["0 or more", "-1"],
            id="negative-parsed",
        ),
        pytest.param(
            lambda: parse_role_counts({"town": -2}, 7),
            "roles.town",
            ["0 or more", "-2"],
            id="negative-town-parsed",
        ),
        pytest.param(
            _validate(GameConfig(players=7, roles=RoleCounts(2, -1, 1, 5))),
            "roles.detective",
            ["0 or more", "-1"],
            id="negative-counts",
        ),
        pytest.param(
            lambda: parse_role_counts({"mafia": 4, "detective": 2, "doctor": 2}, 7),
            "roles",
            ["8", "7 seats"],
            id="specials-exceed-seats",
        ),
        pytest.param(
            _validate(GameConfig(players=7, roles=RoleCounts(2, 1, 1, 4))),
            "roles",
            ["8", "7 seats"],
            id="counts-exceed-seats",
        ),
        pytest.param(
            _validate(GameConfig(players=7, names=("A", "B", "C", "A", "E", "F", "G"))),
            "names",
            ["differ apart from case", "'A' and 'A'"],
            id="duplicate-names",
        ),
        pytest.param(
            _validate(GameConfig(players=5, names=("Ann", "B", "ANN", "D", "E"))),
            "names",
            ["differ apart from case", "'Ann' and 'ANN'"],
            id="names-equal-apart-from-case",
        ),
        pytest.param(
            _validate(GameConfig(players=5, names=("A", "B\nGAME OVER", "C", "D", "E"))),
            "names",
            ["line breaks or control characters", "'B\\nGAME OVER'"],
            id="line-break-in-name",
        ),
        pytest.param(
            _validate(GameConfig(players=5, names=("A", "B\x1b[31m", "C", "D", "E"))),
            "names",
            ["control characters"],
            id="escape-code-in-name",
        ),
        pytest.param(
            _validate(GameConfig(players=5, names=("A", "B" * 41, "C", "D", "E"))),
            "names",
            ["at most 40 characters"],
            id="over-long-name",
        ),
        pytest.param(_validate(GameConfig(seed=2**64)), "seed", ["64 bits", str(2**64)], id="seed-too-big"),
        pytest.param(_validate(GameConfig(seed=-(2**63) - 1)), "seed", ["64 bits"], id="seed-too-small"),
        pytest.param(
            _validate(GameConfig(players=7, names=_names(6))),
            "names",
            ["need 7", "got 6"],
            id="too-few-names",
        ),
        pytest.param(
            _validate(GameConfig(players=5, names=_names(6))),
            "names",
            ["need 5", "got 6"],
            id="too-many-names",
        ),
        pytest.param(
            _validate(GameConfig(players=5, names=("A", "B", "skip", "D", "E"))),
            "names",
            ["'skip'", "reserved"],
            id="skip-as-name",
        ),
        pytest.param(
            _validate(GameConfig(players=5, names=("A", "B", "SKIP", "D", "E"))),
            "names",
            ["'skip'", "reserved"],
            id="skip-any-case",
        ),
        pytest.param(
            _validate(GameConfig(players=5, names=("A", "B", " C", "D", "E"))),
            "names",
            ["edge spaces"],
            id="padded-name",
        ),
        pytest.param(
            _validate(GameConfig(players=5, names=("A", "B", "", "D", "E"))),
            "names",
            ["non-empty"],
            id="empty-name",
        ),
        pytest.param(_validate(GameConfig(round_cap=0)), "round_cap", ["1 or more"], id="round-cap-0"),
        pytest.param(
            lambda: assign_roles(GameConfig(players=16, roles=RoleCounts(8, 1, 1, 6))),
            "roles.mafia",
            ["strictly fewer", "8 vs 8"],
            id="deal-refuses-bad-config",
        ),
    ],
)
def test_config_error_names_the_field(make: Callable[[], object], field: str, mentions: list[str]) -> None:
    with pytest.raises(ConfigError) as raised:
        make()
    assert raised.value.field == field
    message = str(raised.value)
    assert message.startswith(f"{field}: ")
    for text in mentions:
        assert text in message


def test_config_error_is_a_value_error() -> None:
    assert issubclass(ConfigError, ValueError)


@pytest.mark.parametrize(
    ("spec", "players", "expected"),
    [
        pytest.param({}, 7, RoleCounts(2, 1, 1, 3), id="defaults"),
        pytest.param({"mafia": 3}, 10, RoleCounts(3, 1, 1, 5), id="mafia-override"),
        pytest.param({"doctor": 0}, 6, RoleCounts(1, 1, 0, 4), id="no-doctor"),
        pytest.param({"mafia": 1, "town": 3}, 6, RoleCounts(1, 1, 1, 3), id="town-given"),
    ],
)
def test_parse_role_counts(spec: dict[str, int], players: int, expected: RoleCounts) -> None:
    counts = parse_role_counts(spec, players)
    assert counts == expected
    validate_config(GameConfig(players=players, roles=counts))


@pytest.mark.parametrize(
    "config",
    [
        pytest.param(GameConfig(), id="default"),
        pytest.param(GameConfig(players=5), id="smallest"),
        pytest.param(GameConfig(players=16), id="largest"),
        pytest.param(GameConfig(players=5, names=("Ann", "Bo", "Cy", "Di", "Ed")), id="named"),
        pytest.param(GameConfig(players=5, roles=RoleCounts(2, 0, 0, 3)), id="2v3-no-specials"),
    ],
)
def test_valid_configs_pass(config: GameConfig) -> None:
    validate_config(config)
