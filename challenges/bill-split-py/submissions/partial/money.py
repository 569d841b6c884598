"""Integer cents; split still rounds per share."""


def parse_amount(text):
    whole, _, frac = text.strip().replace(",", "").partition(".")
    return int(whole) * 100 + int((frac or "0").ljust(2, "0")[:2])


def split(total_cents, weights):
    s = sum(weights)
    return [round(total_cents * w / s) for w in weights]


def format_cents(cents):
    return f"{cents // 100}.{cents % 100:02d}"
