import os

from flask import Flask, request, send_file
from werkzeug.utils import secure_filename

app = Flask(__name__)
ROOT = "/srv/files"


@app.get("/files")
def files():
    name = request.args["name"]
    # ruleid: bouts.py.path-traversal.request-data-in-file-path
    with open(os.path.join(ROOT, name)) as fh:
        data = fh.read()
    # ruleid: bouts.py.path-traversal.request-data-in-file-path
    send_file(ROOT + "/" + request.args["doc"])
    return data


@app.get("/safe")
def safe():
    # ok: bouts.py.path-traversal.request-data-in-file-path
    with open(os.path.join(ROOT, secure_filename(request.args["name"]))) as fh:
        one = fh.read()
    target = os.path.realpath(os.path.join(ROOT, request.args["name"]))
    if not target.startswith(ROOT + os.sep):
        return "no", 403
    # ok: bouts.py.path-traversal.request-data-in-file-path
    with open(target) as fh:
        return one + fh.read()
