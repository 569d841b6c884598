// Reference solution: private notes over node:http and node:sqlite.
// Passwords are scrypt-hashed with a per-user salt; tokens are 32 random bytes; every query is
// a prepared statement, and LIKE wildcards in searches are escaped.
import http from "node:http";
import { DatabaseSync } from "node:sqlite";
import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";

const USERNAME = /^[a-z0-9_]{3,32}$/;

function hashPassword(password, salt = randomBytes(16)) {
  return `${salt.toString("hex")}:${scryptSync(password, salt, 32).toString("hex")}`;
}

function verifyPassword(password, stored) {
  const [saltHex, hashHex] = stored.split(":");
  const actual = scryptSync(password, Buffer.from(saltHex, "hex"), 32);
  return timingSafeEqual(actual, Buffer.from(hashHex, "hex"));
}

function send(res, status, body) {
  res.writeHead(status, {
    "content-type": "application/json",
    "x-content-type-options": "nosniff",
  });
  res.end(body === undefined ? "" : JSON.stringify(body));
}

async function readJson(req) {
  let raw = "";
  for await (const chunk of req) {
    raw += chunk;
    if (raw.length > 100_000) throw new SyntaxError("body too large");
  }
  return raw === "" ? {} : JSON.parse(raw);
}

export function createApp({ database = ":memory:" } = {}) {
  const db = new DatabaseSync(database);
  db.exec(`
    CREATE TABLE users (id INTEGER PRIMARY KEY, username TEXT UNIQUE NOT NULL, password TEXT NOT NULL);
    CREATE TABLE sessions (token TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id));
    CREATE TABLE notes (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
                        title TEXT NOT NULL, body TEXT NOT NULL);
  `);
  const q = {
    insertUser: db.prepare("INSERT INTO users (username, password) VALUES (?, ?)"),
    userByName: db.prepare("SELECT id, password FROM users WHERE username = ?"),
    insertSession: db.prepare("INSERT INTO sessions (token, user_id) VALUES (?, ?)"),
    sessionUser: db.prepare("SELECT user_id FROM sessions WHERE token = ?"),
    insertNote: db.prepare("INSERT INTO notes (user_id, title, body) VALUES (?, ?, ?)"),
    listNotes: db.prepare("SELECT id, title, body FROM notes WHERE user_id = ? ORDER BY id"),
    searchNotes: db.prepare(
      "SELECT id, title, body FROM notes WHERE user_id = ? AND lower(title) LIKE ? ESCAPE '\\' ORDER BY id",
    ),
    getNote: db.prepare("SELECT id, title, body FROM notes WHERE id = ? AND user_id = ?"),
  };

  function authenticate(req) {
    const m = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(req.headers.authorization ?? "");
    if (!m) return null;
    return q.sessionUser.get(m[1])?.user_id ?? null;
  }

  async function handle(req, res) {
    const url = new URL(req.url, "http://localhost");
    if (req.method === "POST" && url.pathname === "/register") {
      const { username, password } = await readJson(req);
      if (typeof username !== "string" || !USERNAME.test(username))
        return send(res, 400, { error: "invalid username" });
      if (typeof password !== "string" || password.length < 8)
        return send(res, 400, { error: "password too short" });
      if (q.userByName.get(username)) return send(res, 409, { error: "username taken" });
      const { lastInsertRowid } = q.insertUser.run(username, hashPassword(password));
      return send(res, 201, { id: Number(lastInsertRowid), username });
    }
    if (req.method === "POST" && url.pathname === "/login") {
      const { username, password } = await readJson(req);
      const user = typeof username === "string" ? q.userByName.get(username) : undefined;
      if (!user || typeof password !== "string" || !verifyPassword(password, user.password)) {
        return send(res, 401, { error: "bad credentials" });
      }
      const token = randomBytes(32).toString("base64url");
      q.insertSession.run(token, user.id);
      return send(res, 200, { token });
    }
    if (url.pathname === "/notes" || url.pathname.startsWith("/notes/")) {
      const userId = authenticate(req);
      if (userId === null) return send(res, 401, { error: "unauthorized" });
      if (req.method === "POST" && url.pathname === "/notes") {
        const { title, body = "" } = await readJson(req);
        if (
          typeof title !== "string" ||
          title.length < 1 ||
          title.length > 200 ||
          typeof body !== "string"
        ) {
          return send(res, 400, { error: "invalid note" });
        }
        const { lastInsertRowid } = q.insertNote.run(userId, title, body);
        return send(res, 201, { id: Number(lastInsertRowid), title, body });
      }
      if (req.method === "GET" && url.pathname === "/notes") {
        const term = url.searchParams.get("q");
        if (term === null) return send(res, 200, q.listNotes.all(userId));
        const pattern = `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        return send(res, 200, q.searchNotes.all(userId, pattern));
      }
      const id = /^\/notes\/(\d{1,15})$/.exec(url.pathname)?.[1];
      if (req.method === "GET" && id) {
        const note = q.getNote.get(Number(id), userId);
        return note ? send(res, 200, note) : send(res, 404, { error: "not found" });
      }
    }
    return send(res, 404, { error: "not found" });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) =>
      send(res, e instanceof SyntaxError ? 400 : 500, {
        error: e instanceof SyntaxError ? "malformed JSON" : "internal error",
      }),
    );
  });
  return { server, db };
}
