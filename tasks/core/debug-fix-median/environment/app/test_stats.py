from stats import mean, median, spread


def test_mean():
    assert mean([2, 4, 9]) == 5


def test_median_of_odd_count():
    assert median([7, 1, 3]) == 3


def test_median_of_even_count():
    assert median([10, 2, 4, 8]) == 6


def test_spread():
    assert spread([5, -2, 11]) == 13
