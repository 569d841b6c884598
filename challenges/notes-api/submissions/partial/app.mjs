// Partial attempt: registration, login and note creation work; search and per-note lookup were
// not finished, and duplicate usernames are not detected.
import http from "node:http";
import { DatabaseSync } from "node:sqlite";
import { randomBytes, createHash } from "node:crypto";

export function createApp({ database = ":memory:" } = {}) {
  const db = new DatabaseSync(database);
  db.exec(`CREATE TABLE users (id INTEGER PRIMARY KEY, username TEXT, password TEXT);
           CREATE TABLE sessions (token TEXT PRIMARY KEY, user_id INTEGER);
           CREATE TABLE notes (id INTEGER PRIMARY KEY, user_id INTEGER, title TEXT, body TEXT);`);
  const hash = (p) => createHash("sha256").update(p).digest("hex");

  const server = http.createServer(async (req, res) => {
    const send = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    let raw = "";
    for await (const c of req) raw += c;
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      return send(400, { error: "bad json" });
    }
    const url = new URL(req.url, "http://x");
    if (req.method === "POST" && url.pathname === "/register") {
      if (
        !body.password ||
        body.password.length < 8 ||
        !/^[a-z0-9_]{3,32}$/.test(body.username ?? "")
      ) {
        return send(400, { error: "invalid" });
      }
      const r = db
        .prepare("INSERT INTO users (username, password) VALUES (?, ?)")
        .run(body.username, hash(body.password));
      return send(201, { id: Number(r.lastInsertRowid), username: body.username });
    }
    if (req.method === "POST" && url.pathname === "/login") {
      const u = db
        .prepare("SELECT id FROM users WHERE username = ? AND password = ?")
        .get(body.username ?? "", hash(body.password ?? ""));
      if (!u) return send(401, { error: "bad credentials" });
      const token = randomBytes(24).toString("hex");
      db.prepare("INSERT INTO sessions VALUES (?, ?)").run(token, u.id);
      return send(200, { token });
    }
    const token = (req.headers.authorization ?? "").replace("Bearer ", "");
    const s = db.prepare("SELECT user_id FROM sessions WHERE token = ?").get(token);
    if (!s) return send(401, { error: "unauthorized" });
    if (req.method === "POST" && url.pathname === "/notes") {
      const r = db
        .prepare("INSERT INTO notes (user_id, title, body) VALUES (?, ?, ?)")
        .run(s.user_id, body.title, body.body);
      return send(201, { id: Number(r.lastInsertRowid), title: body.title, body: body.body });
    }
    if (req.method === "GET" && url.pathname === "/notes") {
      return send(
        200,
        db.prepare("SELECT id, title, body FROM notes WHERE user_id = ?").all(s.user_id),
      );
    }
    // TODO: GET /notes/:id and search
    return send(404, { error: "not found" });
  });
  return { server, db };
}
