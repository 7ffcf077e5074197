"""The title bar: exact integers against scipy's binomial test, the reference table, the examples."""

from __future__ import annotations

from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from colosseum_core.statistics.significance import (
    TITLE_BAR,
    title_bar,
    title_fight,
    upper_tail,
    wins_clear_bar,
)

# ratings-math §3.6: n decided → the least k that takes the title at α = 1/100.
TABLE = {
    7: 7, 8: 8, 9: 9, 10: 10, 11: 10, 12: 11, 13: 12, 14: 12, 15: 13, 16: 14, 17: 14, 18: 15,
    19: 15, 20: 16, 25: 19, 30: 22, 40: 28, 50: 34, 60: 40, 80: 51, 100: 63, 200: 117,
}  # fmt: skip


def test_the_reference_table() -> None:
    for n in range(7):
        assert title_bar(n) is None
    for n, bar in TABLE.items():
        assert title_bar(n) == bar, n


def test_every_k_and_n_to_250_agrees_with_scipy() -> None:
    assert not wins_clear_bar(0, 0) and title_bar(0) is None  # scipy wants n ≥ 1; P(X ≥ 0) = 1
    for n in range(1, 251):
        bar = title_bar(n)
        for k in range(n + 1):
            clears = wins_clear_bar(k, n)
            assert clears == (binomtest(k, n, 0.5, alternative="greater").pvalue <= 0.01), (k, n)
            assert clears == (bar is not None and k >= bar), (k, n)


def test_the_examples_of_the_reading() -> None:
    fight = title_fight(15, 4)
    assert fight.challenger_takes_title and fight.decided == 19 and fight.bar == 15
    assert fight.p_value == pytest.approx(0.0096054, abs=1e-7)
    assert fight.version == TITLE_BAR and "integers" in fight.method
    assert not title_fight(14, 5).challenger_takes_title
    # 10 draws and 4–1 in decided games: n = 5, no title change possible.
    draw_heavy = title_fight(4, 1)
    assert draw_heavy.decided == 5 and draw_heavy.bar is None and not draw_heavy.challenger_takes_title
    assert not title_fight(5, 0).challenger_takes_title  # even 5–0 is p = 1/32
    assert title_fight(7, 0).challenger_takes_title  # 1/128 ≤ 1/100


def test_the_tail_is_exact_beyond_floats() -> None:
    n = 2000
    assert upper_tail(0, n) == 2**n and upper_tail(n, n) == 1
    assert upper_tail(1000, n) == sum(comb(n, x) for x in range(1000, n + 1))
    bar = title_bar(n)
    assert bar is not None and wins_clear_bar(bar, n) and not wins_clear_bar(bar - 1, n)


def test_other_levels() -> None:
    assert title_bar(10, 5, 100) == 9  # α = 0.05: P(X ≥ 9) = 11/1024
    assert title_bar(10, 1, 1025) is None and title_bar(10, 1, 1024) == 10  # exactly 2^-10 clears
    assert wins_clear_bar(10, 10, 1, 1024) and not wins_clear_bar(10, 10, 1, 1025)


@given(n=st.integers(0, 400), num=st.integers(1, 20), den=st.integers(21, 2000))
def test_the_bar_is_the_least_k_that_clears(n: int, num: int, den: int) -> None:
    bar = title_bar(n, num, den)
    clears = [wins_clear_bar(k, n, num, den) for k in range(n + 1)]
    if bar is None:
        assert not any(clears)
    else:
        assert clears == [k >= bar for k in range(n + 1)]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: wins_clear_bar(5, 4), r"k \(wins\) must be in 0..n = 0..4, not 5"),
        (lambda: wins_clear_bar(-1, 4), r"k \(wins\) must be in 0..n"),
        (lambda: title_bar(-3), r"n \(decided games\) must be non-negative, not -3"),
        (lambda: title_bar(10.0), "n must be a whole number"),  # type: ignore[arg-type]
        (lambda: title_bar(True), "n must be a whole number, not the bool"),  # type: ignore[arg-type]
        (lambda: title_bar(10, 0, 100), "strictly between 0 and 1, not 0/100"),
        (lambda: title_bar(10, 100, 100), "strictly between 0 and 1, not 100/100"),
        (lambda: title_bar(10, 1, 0), "alpha_den must be at least 1, not 0"),
        (lambda: wins_clear_bar(3, 4, 1.0, 100), "alpha_num must be a whole number"),  # type: ignore[arg-type]
        (lambda: title_fight(-1, 3), "wins must be non-negative"),
    ],
)
def test_bad_input_is_refused_by_name(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]
