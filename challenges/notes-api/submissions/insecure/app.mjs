// Works for the happy path, but: SQL is built by string concatenation, an admin backdoor
// credential is hardcoded, tokens come from Math.random, and passwords are stored as given.
import http from "node:http";
import { DatabaseSync } from "node:sqlite";

const ADMIN_PASSWORD = "hunter2-admin-password";

export function createApp({ database = ":memory:" } = {}) {
  const db = new DatabaseSync(database);
  db.exec(`CREATE TABLE users (id INTEGER PRIMARY KEY, username TEXT UNIQUE, password TEXT);
           CREATE TABLE sessions (token TEXT PRIMARY KEY, user_id INTEGER);
           CREATE TABLE notes (id INTEGER PRIMARY KEY, user_id INTEGER, title TEXT, body TEXT);`);

  const server = http.createServer(async (req, res) => {
    const send = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    let raw = "";
    for await (const c of req) raw += c;
    let body;
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch (e) {
      return send(400, { error: e.stack });
    }
    const url = new URL(req.url, "http://x");
    try {
      if (req.method === "POST" && url.pathname === "/register") {
        if (!/^[a-z0-9_]{3,32}$/.test(body.username ?? "") || (body.password ?? "").length < 8)
          return send(400, { error: "invalid" });
        const existing = db
          .prepare("SELECT id FROM users WHERE username = '" + body.username + "'")
          .get();
        if (existing) return send(409, { error: "taken" });
        const r = db
          .prepare(
            "INSERT INTO users (username, password) VALUES ('" +
              body.username +
              "', '" +
              body.password +
              "')",
          )
          .run();
        return send(201, { id: Number(r.lastInsertRowid), username: body.username });
      }
      if (req.method === "POST" && url.pathname === "/login") {
        let u = db
          .prepare(
            "SELECT id FROM users WHERE username = '" +
              body.username +
              "' AND password = '" +
              body.password +
              "'",
          )
          .get();
        if (!u && body.password === ADMIN_PASSWORD) u = { id: 1 };
        if (!u) return send(401, { error: "bad credentials" });
        const token = Math.random().toString(36).slice(2);
        db.prepare("INSERT INTO sessions VALUES ('" + token + "', " + u.id + ")").run();
        return send(200, { token });
      }
      const token = (req.headers.authorization ?? "").replace("Bearer ", "");
      const s = db.prepare("SELECT user_id FROM sessions WHERE token = '" + token + "'").get();
      if (!s) return send(401, { error: "unauthorized" });
      if (req.method === "POST" && url.pathname === "/notes") {
        const r = db
          .prepare("INSERT INTO notes (user_id, title, body) VALUES (?, ?, ?)")
          .run(s.user_id, body.title, body.body ?? "");
        return send(201, {
          id: Number(r.lastInsertRowid),
          title: body.title,
          body: body.body ?? "",
        });
      }
      if (req.method === "GET" && url.pathname === "/notes") {
        const q = url.searchParams.get("q");
        const sql =
          q === null
            ? "SELECT id, title, body FROM notes WHERE user_id = " + s.user_id + " ORDER BY id"
            : "SELECT id, title, body FROM notes WHERE title LIKE '%" +
              q +
              "%' AND user_id = " +
              s.user_id +
              " ORDER BY id";
        return send(200, db.prepare(sql).all());
      }
      const m = /^\/notes\/(\d+)$/.exec(url.pathname);
      if (req.method === "GET" && m) {
        const n = db.prepare("SELECT id, title, body FROM notes WHERE id = " + m[1]).get();
        return n ? send(200, n) : send(404, { error: "not found" });
      }
      return send(404, { error: "not found" });
    } catch (e) {
      return send(500, { error: e.message, stack: e.stack });
    }
  });
  return { server, db };
}
