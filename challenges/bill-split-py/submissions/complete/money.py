"""Exact money arithmetic in integer cents (the reference fix)."""

import re

_AMOUNT = re.compile(r"^(\d{1,3}(?:,\d{3})+|\d{1,12})(?:\.(\d{1,2}))?$")


def parse_amount(text: str) -> int:
    """Parse a non-negative decimal amount into integer cents."""
    if not isinstance(text, str):
        raise ValueError("amount must be text")
    m = _AMOUNT.match(text.strip())
    if not m:
        raise ValueError(f"not an amount: {text[:40]!r}")
    whole = m.group(1).replace(",", "")
    if len(whole) > 12:
        raise ValueError("amount too large")
    frac = (m.group(2) or "").ljust(2, "0")
    return int(whole) * 100 + int(frac)


def split(total_cents: int, weights: list[int]) -> list[int]:
    """Allocate exactly total_cents by weight (largest remainder, ties to the earliest)."""
    if not isinstance(total_cents, int) or total_cents < 0:
        raise ValueError("total must be a non-negative integer")
    if not weights or any((not isinstance(w, int)) or w < 0 for w in weights) or sum(weights) == 0:
        raise ValueError("weights must be non-negative integers with a positive sum")
    weight_sum = sum(weights)
    shares = [total_cents * w // weight_sum for w in weights]
    remainders = [total_cents * w % weight_sum for w in weights]
    leftover = total_cents - sum(shares)
    order = sorted(range(len(weights)), key=lambda i: (-remainders[i], i))
    for i in order[:leftover]:
        shares[i] += 1
    return shares


def format_cents(cents: int) -> str:
    """Format integer cents as a decimal string."""
    return f"{cents // 100}.{cents % 100:02d}"
