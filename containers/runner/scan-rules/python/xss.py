from flask import Flask, jsonify, request
from markupsafe import escape

app = Flask(__name__)


@app.get("/hello")
def hello():
    name = request.args.get("name", "")
    # ruleid: bouts.py.xss.request-data-in-html-response
    return "<h1>Hello " + name + "</h1>"


@app.get("/hello2")
def hello2():
    # ruleid: bouts.py.xss.request-data-in-html-response
    return f"<p>{request.args['q']}</p>"


@app.get("/safe")
def safe():
    name = request.args.get("name", "")
    # ok: bouts.py.xss.request-data-in-html-response
    return "<h1>Hello " + escape(name) + "</h1>"


@app.get("/json")
def as_json():
    # ok: bouts.py.xss.request-data-in-html-response
    return jsonify(name=request.args.get("name"))
