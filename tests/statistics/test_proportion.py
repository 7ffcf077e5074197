"""Wilson's score interval (COLOSSEUM-WILSON-1) against values computed by hand from its formula."""

from __future__ import annotations

import pytest

from colosseum_core.statistics.proportion import wilson_interval


def test_wilson_matches_its_formula_and_stays_inside_zero_and_one() -> None:
    share, low, high = wilson_interval(0, 10)
    assert share == 0.0 and low == 0.0 and high == pytest.approx(0.27753, abs=1e-5)
    share, low, high = wilson_interval(7, 10)
    assert share == 0.7 and (low, high) == pytest.approx((0.39678, 0.89221), abs=1e-5)
    share, low, high = wilson_interval(10, 10)
    assert share == 1.0 and high == pytest.approx(1.0) and low == pytest.approx(0.72247, abs=1e-5)
    # A draw counts half: 11.5 of 24.
    share, low, high = wilson_interval(11.5, 24)
    assert low < share < high and high - low < 0.4


def test_no_outcome_has_no_interval_and_a_count_beyond_n_is_refused() -> None:
    assert wilson_interval(0, 0) == (None, None, None)
    with pytest.raises(ValueError, match="is not a proportion"):
        wilson_interval(11, 10)
