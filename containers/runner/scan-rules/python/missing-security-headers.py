from flask import Flask
from flask_talisman import Talisman

# ok: bouts.py.missing-security-headers.flask-without-headers
manual = Flask(__name__)


@manual.after_request
def headers(response):
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


# ok: bouts.py.missing-security-headers.flask-without-headers
talisman = Flask(__name__)
Talisman(talisman)

# ruleid: bouts.py.missing-security-headers.flask-without-headers
bare = Flask(__name__)
