import sqlite3

from flask import Flask, request

app = Flask(__name__)
db = sqlite3.connect("app.db")


@app.get("/users")
def users():
    name = request.args.get("name", "")
    # ruleid: bouts.py.sql-injection.string-built-query
    rows = db.execute("SELECT * FROM users WHERE name = '" + name + "'").fetchall()
    # ruleid: bouts.py.sql-injection.string-built-query
    more = db.execute("SELECT * FROM users WHERE id = %s" % request.args["id"]).fetchall()
    # ruleid: bouts.py.sql-injection.fstring-query
    again = db.execute(f"DELETE FROM sessions WHERE user = '{name}'")
    # ruleid: bouts.py.sql-injection.string-built-query
    fmt = "UPDATE users SET name = '{}' WHERE id = 1".format(name)
    # ok: bouts.py.sql-injection.string-built-query
    safe = db.execute("SELECT * FROM users WHERE name = ?", (name,)).fetchall()
    # ok: bouts.py.sql-injection.fstring-query
    msg = f"found {len(safe)} users"
    return {"rows": rows, "more": more, "again": again, "fmt": fmt, "msg": msg}
