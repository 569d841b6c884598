import pytest

from money import format_cents, parse_amount, split


def test_parse_amount_basic():
    assert parse_amount("12.34") == 1234
    assert parse_amount("7") == 700
    assert parse_amount("0.5") == 50


def test_split_even():
    assert split(900, [1, 1, 1]) == [300, 300, 300]


def test_split_remainder_goes_to_first_shares():
    assert split(100, [1, 1, 1]) == [34, 33, 33]
    assert split(200, [1, 1, 1]) == [67, 67, 66]


def test_split_by_weights():
    assert split(1000, [1, 3]) == [250, 750]
    assert split(1001, [1, 0, 1]) == [501, 0, 500]


def test_format_cents():
    assert format_cents(1234) == "12.34"
    assert format_cents(5) == "0.05"
    assert format_cents(0) == "0.00"


def test_parse_amount_edge_cases():
    assert parse_amount(" 1,234.50 ") == 123450
    for bad in ["", "12.345", "abc", "1,23.00", "--1", "1.2.3"]:
        with pytest.raises(ValueError):
            parse_amount(bad)


def test_split_zero_total():
    assert split(0, [2, 1]) == [0, 0]


def test_split_rejects_bad_shares():
    for weights in [[], [0, 0], [-1, 2]]:
        with pytest.raises(ValueError):
            split(100, weights)
    # A refusal counts only beside a working split.
    assert split(100, [1, 3]) == [25, 75]


def test_receipt_roundtrip(receipt):
    total = sum(parse_amount(x) for x in receipt)
    shares = split(total, [1, 1, 1])
    assert sum(shares) == total
    assert [format_cents(s) for s in shares] == ["339.94", "339.93", "339.93"]


def test_sum_is_preserved_for_many_totals():
    for total in range(0, 5000, 7):
        for weights in ([1, 1, 1], [1, 2, 3, 4], [7, 0, 5]):
            assert sum(split(total, weights)) == total
