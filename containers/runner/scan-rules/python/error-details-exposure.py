import traceback

from flask import Flask, jsonify

app = Flask(__name__)


@app.get("/items")
def items():
    try:
        return jsonify(load())
    except Exception as exc:
        # ruleid: bouts.py.error-details-exposure.error-in-response
        return {"error": str(exc), "trace": traceback.format_exc()}, 500


@app.get("/safe")
def safe():
    try:
        return jsonify(load())
    except Exception:
        app.logger.exception("load failed")
        # ok: bouts.py.error-details-exposure.error-in-response
        return {"error": "internal error"}, 500


def load() -> list:
    return []


if __name__ == "__main__":
    # ruleid: bouts.py.error-details-exposure.debug-mode
    app.run(debug=True)
    # ok: bouts.py.error-details-exposure.debug-mode
    app.run(debug=False)
