import time

import pytest

from money import parse_amount, split


# Each refusal test also makes a valid call in the same test: a refusal counts only beside a
# working function, so code that raises ValueError for everything passes none of them.


def test_rejects_nan_and_infinity():
    for bad in ["nan", "NaN", "inf", "-inf", "Infinity"]:
        with pytest.raises(ValueError):
            parse_amount(bad)
    assert parse_amount("12.50") == 1250


def test_rejects_exponent_and_huge_inputs():
    for bad in ["1e3", "1E309", "9" * 13, "1" * 10_000]:
        with pytest.raises(ValueError):
            parse_amount(bad)
    assert parse_amount("1,000.05") == 100005


def test_rejects_negative_totals():
    with pytest.raises(ValueError):
        parse_amount("-5.00")
    with pytest.raises(ValueError):
        split(-100, [1, 1])
    assert parse_amount("5.00") == 500
    assert split(100, [1, 1]) == [50, 50]


def test_large_share_count_is_fast():
    start = time.monotonic()
    shares = split(10**12, [1] * 100_000)
    assert sum(shares) == 10**12
    assert time.monotonic() - start < 2
