import os

import jwt

# ruleid: bouts.py.hardcoded-credentials.secret-literal
DB_PASSWORD = "s3cr3t-Pa55"
# ruleid: bouts.py.hardcoded-credentials.secret-literal
SECRET_KEY = os.environ.get("SECRET_KEY", "dev-secret-123")
# ruleid: bouts.py.hardcoded-credentials.secret-literal
CONFIG = {"host": "db", "api_key": "a8f5f167f44f4964e6c998dee827110c"}
# ruleid: bouts.py.hardcoded-credentials.known-key-format
AWS = "AKIAIOSFODNN7EXAMPLE"


def login(username: str, password: str) -> bool:
    # ruleid: bouts.py.hardcoded-credentials.secret-literal
    return username == "admin" and password == "hunter22"


# ok: bouts.py.hardcoded-credentials.secret-literal
PASSWORD_FIELD = "password"
# ok: bouts.py.hardcoded-credentials.secret-literal
ERR_BAD_PASSWORD = "Invalid password or username"
# ok: bouts.py.hardcoded-credentials.secret-literal
API_KEY = os.environ["API_KEY"]
# ok: bouts.py.hardcoded-credentials.secret-literal
TOKEN = jwt.encode({"sub": "x"}, API_KEY)
