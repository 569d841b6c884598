import time

import pytest

from money import parse_amount, split


def test_rejects_nan_and_infinity():
    for bad in ["nan", "NaN", "inf", "-inf", "Infinity"]:
        with pytest.raises(ValueError):
            parse_amount(bad)


def test_rejects_exponent_and_huge_inputs():
    for bad in ["1e3", "1E309", "9" * 13, "1" * 10_000]:
        with pytest.raises(ValueError):
            parse_amount(bad)


def test_rejects_negative_totals():
    with pytest.raises(ValueError):
        parse_amount("-5.00")
    with pytest.raises(ValueError):
        split(-100, [1, 1])


def test_large_share_count_is_fast():
    start = time.monotonic()
    shares = split(10**12, [1] * 100_000)
    assert sum(shares) == 10**12
    assert time.monotonic() - start < 2
