import random
import secrets
import string


def generate_reset_token() -> str:
    # ruleid: bouts.py.insecure-randomness.random-for-secret
    return "".join(random.choices(string.ascii_letters, k=32))


def issue(user_id: str) -> dict:
    # ruleid: bouts.py.insecure-randomness.random-for-secret
    api_key = "k_" + str(random.getrandbits(64))
    return {"user": user_id, "key": api_key}


def pick_color(colors: list) -> str:
    # ok: bouts.py.insecure-randomness.random-for-secret
    return random.choice(colors)


def generate_token() -> str:
    # ok: bouts.py.insecure-randomness.random-for-secret
    return secrets.token_urlsafe(32)
