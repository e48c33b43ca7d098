"""More cases than the agent saw: the fix must be general, not fitted to the visible tests."""

import sys

sys.path.insert(0, "/app")

from stats import mean, median, spread  # noqa: E402


def test_median_of_two_values():
    assert median([3, 9]) == 6


def test_median_of_unsorted_even_count():
    assert median([9, 1, 8, 2, 7, 3]) == 5


def test_median_of_floats():
    assert median([0.5, 2.5, 1.5, 3.5]) == 2.0


def test_median_of_odd_count():
    assert median([4, 100, -3, 8, 6]) == 6


def test_median_does_not_reorder_its_input():
    values = [3, 1, 2, 4]
    median(values)
    assert values == [3, 1, 2, 4]


def test_mean_and_spread_still_work():
    assert mean([1, 2, 3, 4]) == 2.5
    assert spread([7]) == 0
