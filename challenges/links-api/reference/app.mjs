// Reference solution: a bookmarks API on Hono, zod and node:sqlite.
// Middleware, outermost first: request id, secure headers, body limit, then bearer auth on
// /links. Every body, query and path parameter goes through a zod schema; every error leaves as
// an application/problem+json body from one error handler. Passwords are scrypt-hashed with a
// per-user salt; only the sha256 of a session token is stored; every query is a prepared
// statement and title search uses instr(), so user text is never SQL or a LIKE pattern.
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import { promisify } from "node:util";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { z } from "zod";

const scryptAsync = promisify(scrypt);
const TOKEN_TTL_MS = 2 * 60 * 60 * 1000;
const MAX_BODY_BYTES = 64 * 1024;
const PASSWORD_MIN = 8;
const TEXT_MAX = 200; // titles, search terms, passwords
const URL_MAX = 2048;
const TAGS_MAX = 10;
const LIST_DEFAULT = 50;
const LIST_MAX = 100;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const TOKEN_BYTES = 32;
const TAG = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** An absolute http(s) URL, or a bare host and path that would be one with https:// in front. */
function isWebUrl(value) {
  const text = URL.canParse(value) ? value : `https://${value}`;
  if (!URL.canParse(text)) return false;
  const parsed = new URL(text);
  return (
    parsed !== null &&
    (parsed.protocol === "http:" || parsed.protocol === "https:") &&
    parsed.hostname !== ""
  );
}

const Credentials = z.strictObject({
  username: z.string().regex(/^[a-z0-9_]{3,32}$/, "3 to 32 of a-z, 0-9 and _"),
  password: z.string().min(PASSWORD_MIN).max(TEXT_MAX),
});
const Login = z.strictObject({
  username: z.string().max(TEXT_MAX),
  password: z.string().max(TEXT_MAX),
});
const NewLink = z.strictObject({
  url: z.string().min(1).max(URL_MAX).refine(isWebUrl, "an http(s) URL or a bare host"),
  title: z.string().min(1).max(TEXT_MAX),
  tags: z.array(z.string().regex(TAG, "1 to 32 of a-z, 0-9 and -")).max(TAGS_MAX).optional(),
});
const ListQuery = z.object({
  q: z.string().max(TEXT_MAX).optional(),
  tag: z.string().regex(TAG, "1 to 32 of a-z, 0-9 and -").optional(),
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, "an integer from 1 to 100")
    .transform(Number)
    .pipe(z.number().max(LIST_MAX))
    .optional(),
});
const LinkId = z
  .string()
  .regex(/^[1-9][0-9]{0,14}$/, "a positive integer")
  .transform(Number);

const TITLES = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  409: "Conflict",
  413: "Content Too Large",
  500: "Internal Server Error",
};

/** An HTTPException carrying the problem's detail and, for validation, zod's issues. */
function problem(status, detail, issues) {
  return new HTTPException(status, { message: detail, cause: issues ? { issues } : undefined });
}

/** Parses `value` with `schema`, or throws a 400 problem naming each field that failed. */
function parse(schema, value) {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({
    path: i.path.join("."),
    message: i.message,
  }));
  throw problem(400, "the request is invalid", issues);
}

/** The one shape every error leaves in: RFC 9457 problem details plus the request id. */
function problemResponse(c, status, detail, issues) {
  const body = {
    type: "about:blank",
    title: TITLES[status] ?? "Error",
    status,
    detail,
    requestId: c.get("requestId"),
  };
  if (issues) body.issues = issues;
  return c.json(body, status, { "content-type": "application/problem+json" });
}

async function readJson(c) {
  try {
    return await c.req.json();
  } catch {
    throw problem(400, "the body is not valid JSON");
  }
}

const hashToken = (token) => createHash("sha256").update(token).digest("hex");

async function hashPassword(password) {
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptAsync(password, salt, KEY_BYTES);
  return `${salt.toString("hex")}:${hash.toString("hex")}`;
}

// Checked for unknown users too, so a login's timing does not tell which usernames exist.
const DUMMY_HASH = `${"00".repeat(SALT_BYTES)}:${"00".repeat(KEY_BYTES)}`;

async function verifyPassword(password, stored) {
  const [saltHex, hashHex] = stored.split(":");
  const actual = await scryptAsync(password, Buffer.from(saltHex, "hex"), KEY_BYTES);
  return timingSafeEqual(actual, Buffer.from(hashHex, "hex"));
}

function openDatabase(database) {
  const db = new DatabaseSync(database);
  db.exec(`
    PRAGMA foreign_keys = ON;
    CREATE TABLE IF NOT EXISTS users (
      id INTEGER PRIMARY KEY,
      username TEXT NOT NULL UNIQUE,
      password TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS sessions (
      token_hash TEXT PRIMARY KEY,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      expires_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS links (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      url TEXT NOT NULL,
      title TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS link_tags (
      link_id INTEGER NOT NULL REFERENCES links(id) ON DELETE CASCADE,
      tag TEXT NOT NULL,
      PRIMARY KEY (link_id, tag)
    );
    CREATE INDEX IF NOT EXISTS links_by_user ON links (user_id, id);
    CREATE INDEX IF NOT EXISTS tags_by_name ON link_tags (tag, link_id);
  `);
  return db;
}

const LINK_COLUMNS = `l.id, l.url, l.title, l.created_at AS createdAt,
  (SELECT json_group_array(tag) FROM
     (SELECT tag FROM link_tags t WHERE t.link_id = l.id ORDER BY tag)) AS tags`;

function toLink(row) {
  return {
    id: row.id,
    url: row.url,
    title: row.title,
    tags: JSON.parse(row.tags),
    createdAt: row.createdAt,
  };
}

export function createApp({ database = ":memory:" } = {}) {
  const db = openDatabase(database);
  const sql = {
    insertUser: db.prepare(
      "INSERT INTO users (username, password) VALUES (?, ?) ON CONFLICT (username) DO NOTHING",
    ),
    userByName: db.prepare("SELECT id, password FROM users WHERE username = ?"),
    insertSession: db.prepare(
      "INSERT INTO sessions (token_hash, user_id, expires_at) VALUES (?, ?, ?)",
    ),
    sessionUser: db.prepare("SELECT user_id FROM sessions WHERE token_hash = ? AND expires_at > ?"),
    insertLink: db.prepare(
      "INSERT INTO links (user_id, url, title, created_at) VALUES (?, ?, ?, ?)",
    ),
    insertTag: db.prepare("INSERT OR IGNORE INTO link_tags (link_id, tag) VALUES (?, ?)"),
    getLink: db.prepare(`SELECT ${LINK_COLUMNS} FROM links l WHERE l.id = ? AND l.user_id = ?`),
    listLinks: db.prepare(`
      SELECT ${LINK_COLUMNS} FROM links l
      WHERE l.user_id = ?
        AND (? IS NULL OR instr(lower(l.title), lower(?)) > 0)
        AND (? IS NULL OR EXISTS
              (SELECT 1 FROM link_tags t WHERE t.link_id = l.id AND t.tag = ?))
      ORDER BY l.id
      LIMIT ?`),
    deleteLink: db.prepare("DELETE FROM links WHERE id = ? AND user_id = ?"),
  };

  const app = new Hono();
  app.use(requestId());
  app.use(secureHeaders());
  app.use(
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw problem(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
      },
    }),
  );

  const auth = async (c, next) => {
    const m = /^Bearer ([A-Za-z0-9_-]{43})$/.exec(c.req.header("authorization") ?? "");
    const session = m ? sql.sessionUser.get(hashToken(m[1]), Date.now()) : undefined;
    if (!session) throw problem(401, "a valid bearer token is required");
    c.set("userId", session.user_id);
    await next();
  };
  app.use("/links", auth);
  app.use("/links/*", auth);

  app.post("/register", async (c) => {
    const { username, password } = parse(Credentials, await readJson(c));
    const hash = await hashPassword(password);
    // The UNIQUE constraint decides, so concurrent registrations of one name cannot both win.
    const { changes, lastInsertRowid } = sql.insertUser.run(username, hash);
    if (changes === 0) throw problem(409, "the username is taken");
    return c.json({ id: Number(lastInsertRowid), username }, 201);
  });

  app.post("/login", async (c) => {
    const { username, password } = parse(Login, await readJson(c));
    const user = sql.userByName.get(username);
    const valid = await verifyPassword(password, user?.password ?? DUMMY_HASH);
    if (!user || !valid) throw problem(401, "wrong username or password");
    const token = randomBytes(TOKEN_BYTES).toString("base64url");
    sql.insertSession.run(hashToken(token), user.id, Date.now() + TOKEN_TTL_MS);
    return c.json({ token }, 200);
  });

  app.post("/links", async (c) => {
    const { url, title, tags = [] } = parse(NewLink, await readJson(c));
    const userId = c.get("userId");
    db.exec("BEGIN");
    try {
      const { lastInsertRowid } = sql.insertLink.run(userId, url, title, new Date().toISOString());
      for (const tag of tags) sql.insertTag.run(lastInsertRowid, tag);
      db.exec("COMMIT");
      return c.json(toLink(sql.getLink.get(lastInsertRowid, userId)), 201);
    } catch (e) {
      db.exec("ROLLBACK");
      throw e;
    }
  });

  app.get("/links", (c) => {
    const { q = null, tag = null, limit = LIST_DEFAULT } = parse(ListQuery, c.req.query());
    const rows = sql.listLinks.all(c.get("userId"), q, q, tag, tag, limit);
    return c.json(rows.map(toLink), 200);
  });

  app.get("/links/:id", (c) => {
    const id = parse(LinkId, c.req.param("id"));
    const row = sql.getLink.get(id, c.get("userId"));
    if (!row) throw problem(404, "no such bookmark");
    return c.json(toLink(row), 200);
  });

  app.delete("/links/:id", (c) => {
    const id = parse(LinkId, c.req.param("id"));
    const { changes } = sql.deleteLink.run(id, c.get("userId"));
    if (changes === 0) throw problem(404, "no such bookmark");
    return c.body(null, 204);
  });

  app.notFound((c) => problemResponse(c, 404, "no such route"));
  app.onError((err, c) =>
    err instanceof HTTPException
      ? problemResponse(c, err.status, err.message, err.cause?.issues)
      : problemResponse(c, 500, "internal error"),
  );

  const server = createAdaptorServer({ fetch: app.fetch });
  return { server, db };
}
