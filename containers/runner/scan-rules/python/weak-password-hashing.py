import hashlib

import bcrypt


def store(password: str, salt: bytes):
    # ruleid: bouts.py.weak-password-hashing.fast-hash-for-password
    a = hashlib.md5(password.encode()).hexdigest()
    # ruleid: bouts.py.weak-password-hashing.fast-hash-for-password
    b = hashlib.sha256(salt + password.encode()).hexdigest()
    # ruleid: bouts.py.weak-password-hashing.low-work-factor
    c = bcrypt.hashpw(password.encode(), bcrypt.gensalt(4))
    # ruleid: bouts.py.weak-password-hashing.low-work-factor
    d = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 1000)
    return a, b, c, d


def fine(password: str, body: bytes, salt: bytes):
    # ok: bouts.py.weak-password-hashing.fast-hash-for-password
    etag = hashlib.sha1(body).hexdigest()
    # ok: bouts.py.weak-password-hashing.low-work-factor
    h = bcrypt.hashpw(password.encode(), bcrypt.gensalt(12))
    # ok: bouts.py.weak-password-hashing.low-work-factor
    k = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 600000)
    return etag, h, k
