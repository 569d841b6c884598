"""Example submission "stub": a do-nothing money module that refuses every call with the
interface's declared error. It must earn nothing (docs/design.md section 33)."""


def parse_amount(text: str) -> int:
    """Parse a decimal amount such as "1,234.50" into integer cents.

    Raises ValueError for anything that is not a plain non-negative amount.
    """
    raise ValueError(f"not a valid amount: {text!r}")


def split(total_cents: int, weights: list[int]) -> list[int]:
    """Split total_cents by weights with largest-remainder allocation; shares sum to the total.

    Raises ValueError for a negative total or invalid weights.
    """
    raise ValueError(f"cannot split {total_cents!r} by {weights!r}")
