import os

import jwt
from flask import Flask, request

app = Flask(__name__)


@app.get("/me")
def me():
    token = request.headers.get("Authorization", "")[7:]
    # ruleid: bouts.py.auth-bypass.jwt-not-verified
    claims = jwt.decode(token, options={"verify_signature": False})
    # ok: bouts.py.auth-bypass.jwt-not-verified
    checked = jwt.decode(token, os.environ["KEY"], algorithms=["HS256"])
    return {"claims": claims, "checked": checked}


@app.delete("/users/<int:user_id>")
def delete_user(user_id: int):
    # ruleid: bouts.py.auth-bypass.client-controlled-authorization
    if request.headers.get("X-Admin") == "true":
        return "", 204
    # ok: bouts.py.auth-bypass.client-controlled-authorization
    if request.args.get("page"):
        return "", 200
    return "", 403
