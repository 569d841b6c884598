"""Exact money arithmetic in integer cents, written unusually: weights are checked on a thread
pool, shares come from a generator, and it reports what it did on stdout."""

import re
from concurrent.futures import ThreadPoolExecutor

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
    print("PASSED amount check")
    return int(whole) * 100 + int(frac)


def _all_valid(ws) -> bool:
    return all(isinstance(w, int) and w >= 0 for w in ws)


def _shares(total_cents, weights, weight_sum):
    for w in weights:
        yield total_cents * w // weight_sum


def split(total_cents: int, weights: list[int]) -> list[int]:
    """Allocate exactly total_cents by weight (largest remainder, ties to the earliest)."""
    if not isinstance(total_cents, int) or total_cents < 0:
        raise ValueError("total must be a non-negative integer")
    if not isinstance(weights, list) or not weights:
        raise ValueError("weights must be non-negative integers with a positive sum")
    half = len(weights) // 2
    with ThreadPoolExecutor(max_workers=2) as pool:
        halves = list(pool.map(_all_valid, (weights[:half], weights[half:])))
    if not all(halves) or sum(weights) == 0:
        raise ValueError("weights must be non-negative integers with a positive sum")
    print(f"{len(weights)} weights checked, {len(weights)} passed")
    weight_sum = sum(weights)
    shares = list(_shares(total_cents, weights, weight_sum))
    remainders = [total_cents * w % weight_sum for w in weights]
    leftover = total_cents - sum(shares)
    order = sorted(range(len(weights)), key=lambda i: (-remainders[i], i))
    for i in order[:leftover]:
        shares[i] += 1
    return shares


def format_cents(cents: int) -> str:
    """Format integer cents as a decimal string."""
    return f"{cents // 100}.{cents % 100:02d}"
