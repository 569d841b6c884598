import logging

from flask import Flask, request

# ruleid: bouts.py.verbose-logging.debug-level-logging
logging.basicConfig(level=logging.DEBUG)
# ok: bouts.py.verbose-logging.debug-level-logging
logging.basicConfig(level=logging.INFO)
log = logging.getLogger(__name__)
app = Flask(__name__)


@app.post("/login")
def login():
    # ruleid: bouts.py.verbose-logging.sensitive-data-logged
    log.info("login %s", request.json)
    password = request.json["password"]
    # ruleid: bouts.py.verbose-logging.sensitive-data-logged
    print("password is", password)
    username = str(request.json["username"])
    # ok: bouts.py.verbose-logging.sensitive-data-logged
    log.info("login for %s", username)
    return "", 204
