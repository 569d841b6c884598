// Bookmarks API: Hono routes over node:sqlite, zod schemas at every boundary. Requests pass
// request-id, secure-headers and body-limit middleware, then the token check on /links, then
// validation in the handler; every failure leaves through one problem+json error handler.
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
import ms from "ms";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { z } from "zod";

const SESSION_LIFETIME = "2h";
const BODY_LIMIT_BYTES = 64 * 1024;
const MIN_PASSWORD = 8;
const MAX_TEXT = 200;
const MAX_URL = 2048;
const MAX_TAGS = 10;
const DEFAULT_PAGE = 50;
const MAX_PAGE = 100;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const TOKEN_BYTES = 32;
const TAG_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** Request schemas: strict objects, so a client cannot set fields it does not own. */
const schemas = {
  register: z.strictObject({
    username: z.string().regex(/^[a-z0-9_]{3,32}$/),
    password: z.string().min(MIN_PASSWORD).max(MAX_TEXT),
  }),
  login: z.strictObject({
    username: z.string().max(MAX_TEXT),
    password: z.string().max(MAX_TEXT),
  }),
  link: z.strictObject({
    url: z
      .string()
      .min(1)
      .max(MAX_URL)
      .refine(isHttpUrl, { message: "must be an http(s) URL or a bare host" }),
    title: z.string().min(1).max(MAX_TEXT),
    tags: z.array(z.string().regex(TAG_PATTERN)).max(MAX_TAGS).default([]),
  }),
  search: z.object({
    q: z.string().max(MAX_TEXT).optional(),
    tag: z.string().regex(TAG_PATTERN).optional(),
    limit: z
      .string()
      .regex(/^\d{1,3}$/)
      .transform(Number)
      .pipe(z.number().int().min(1).max(MAX_PAGE))
      .default(DEFAULT_PAGE),
  }),
  id: z
    .string()
    .regex(/^[1-9]\d{0,14}$/)
    .transform(Number),
};

/** An absolute http(s) URL, or a bare host and path that parses once https:// is put in front. */
function isHttpUrl(text) {
  for (const candidate of [text, `https://${text}`]) {
    if (!URL.canParse(candidate)) continue;
    const { protocol, hostname } = new URL(candidate);
    return (protocol === "http:" || protocol === "https:") && hostname.length > 0;
  }
  return false;
}

/** An HTTP error with the problem's detail and, for validation failures, the field issues. */
class Problem extends HTTPException {
  constructor(status, detail, issues) {
    super(status, { message: detail });
    this.issues = issues;
  }
}

/** The parsed input, or a 400 Problem listing each failing field by its dotted path. */
function validate(schema, input) {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new Problem(
    400,
    "validation failed",
    parsed.error.issues.map(({ path, message }) => ({ path: path.join("."), message })),
  );
}

async function jsonBody(c) {
  try {
    return await c.req.json();
  } catch {
    throw new Problem(400, "malformed JSON body");
  }
}

function scryptHash(password, salt) {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, HASH_BYTES, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

// Sessions are looked up by the token's digest, so the database never holds a usable token.
const sha256 = (text) => createHash("sha256").update(text).digest("base64url");

/** The SQLite schema and every prepared statement; tables survive a restart on the same file. */
class Store {
  constructor(path) {
    this.db = new DatabaseSync(path);
    this.db.exec(`
      PRAGMA foreign_keys = ON;
      CREATE TABLE IF NOT EXISTS users (
        id INTEGER PRIMARY KEY,
        username TEXT NOT NULL UNIQUE,
        salt BLOB NOT NULL,
        hash BLOB NOT NULL
      );
      CREATE TABLE IF NOT EXISTS sessions (
        digest TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        expires INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS bookmarks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        owner INTEGER NOT NULL REFERENCES users(id),
        url TEXT NOT NULL,
        title TEXT NOT NULL,
        tags TEXT NOT NULL DEFAULT '[]',
        created TEXT NOT NULL
      );
    `);
    const select = "SELECT id, url, title, tags, created FROM bookmarks";
    this.stmt = {
      addUser: this.db.prepare(
        "INSERT OR IGNORE INTO users (username, salt, hash) VALUES (?, ?, ?)",
      ),
      findUser: this.db.prepare("SELECT id, salt, hash FROM users WHERE username = ?"),
      addSession: this.db.prepare(
        "INSERT INTO sessions (digest, user_id, expires) VALUES (?, ?, ?)",
      ),
      findSession: this.db.prepare("SELECT user_id FROM sessions WHERE digest = ? AND expires > ?"),
      add: this.db.prepare(
        "INSERT INTO bookmarks (owner, url, title, tags, created) VALUES (?, ?, ?, ?, ?)",
      ),
      one: this.db.prepare(`${select} WHERE id = ? AND owner = ?`),
      search: this.db.prepare(`${select}
        WHERE owner = :owner
          AND (:q IS NULL OR title LIKE '%' || :q || '%' ESCAPE '!')
          AND (:tag IS NULL OR EXISTS (SELECT 1 FROM json_each(tags) WHERE value = :tag))
        ORDER BY id LIMIT :limit`),
      remove: this.db.prepare("DELETE FROM bookmarks WHERE id = ? AND owner = ?"),
    };
  }
}

const present = (row) => ({
  id: row.id,
  url: row.url,
  title: row.title,
  tags: JSON.parse(row.tags),
  createdAt: row.created,
});

/** Builds the API; `database` is the SQLite file every user, session and bookmark lives in. */
export function createApp({ database = ":memory:" } = {}) {
  const store = new Store(database);
  const { stmt } = store;
  const app = new Hono();

  app.use(requestId(), secureHeaders());
  app.use(
    bodyLimit({
      maxSize: BODY_LIMIT_BYTES,
      onError: () => {
        throw new Problem(413, "request body too large");
      },
    }),
  );

  // Auth runs before any handler validates, so an anonymous request is a 401 whatever its body.
  app.on(["GET", "POST", "DELETE"], ["/links", "/links/*"], async (c, next) => {
    const [scheme, token, extra] = (c.req.header("Authorization") ?? "").split(" ");
    const session =
      scheme === "Bearer" && token && extra === undefined
        ? stmt.findSession.get(sha256(token), Date.now())
        : undefined;
    if (!session) throw new Problem(401, "missing or invalid bearer token");
    c.set("user", session.user_id);
    await next();
  });

  app.post("/register", async (c) => {
    const { username, password } = validate(schemas.register, await jsonBody(c));
    const salt = randomBytes(SALT_BYTES);
    const hash = await scryptHash(password, salt);
    // INSERT OR IGNORE: the UNIQUE constraint settles concurrent registrations of one name.
    const result = stmt.addUser.run(username, salt, hash);
    if (result.changes === 0) throw new Problem(409, "username already registered");
    return c.json({ id: Number(result.lastInsertRowid), username }, 201);
  });

  app.post("/login", async (c) => {
    const { username, password } = validate(schemas.login, await jsonBody(c));
    const user = stmt.findUser.get(username);
    // Hash even for an unknown user, so the answer's timing does not reveal who exists.
    const salt = user?.salt ?? Buffer.alloc(SALT_BYTES);
    const actual = await scryptHash(password, salt);
    if (!user || !timingSafeEqual(actual, user.hash)) throw new Problem(401, "bad credentials");
    const token = randomBytes(TOKEN_BYTES).toString("base64url");
    stmt.addSession.run(sha256(token), user.id, Date.now() + ms(SESSION_LIFETIME));
    return c.json({ token });
  });

  app.post("/links", async (c) => {
    const link = validate(schemas.link, await jsonBody(c));
    const tags = JSON.stringify([...new Set(link.tags)].sort());
    const created = new Date().toISOString();
    const { lastInsertRowid } = stmt.add.run(c.get("user"), link.url, link.title, tags, created);
    return c.json(present(stmt.one.get(lastInsertRowid, c.get("user"))), 201);
  });

  app.get("/links", (c) => {
    const { q, tag, limit } = validate(schemas.search, c.req.query());
    const rows = stmt.search.all({
      owner: c.get("user"),
      // The term is matched as text: LIKE's wildcards (and the escape character) are escaped.
      q: q === undefined ? null : q.replace(/[!%_]/g, "!$&"),
      tag: tag ?? null,
      limit,
    });
    return c.json(rows.map(present));
  });

  app.get("/links/:id", (c) => {
    const row = stmt.one.get(validate(schemas.id, c.req.param("id")), c.get("user"));
    if (!row) throw new Problem(404, "bookmark not found");
    return c.json(present(row));
  });

  app.delete("/links/:id", (c) => {
    const { changes } = stmt.remove.run(validate(schemas.id, c.req.param("id")), c.get("user"));
    if (changes === 0) throw new Problem(404, "bookmark not found");
    return c.body(null, 204);
  });

  const problem = (c, status, detail, issues) =>
    c.json({ type: "about:blank", status, detail, requestId: c.get("requestId"), issues }, status, {
      "Content-Type": "application/problem+json",
    });
  app.notFound((c) => problem(c, 404, "route not found"));
  app.onError((err, c) =>
    err instanceof HTTPException
      ? problem(c, err.status, err.message, err.issues)
      : problem(c, 500, "internal server error"),
  );

  return { server: createAdaptorServer({ fetch: app.fetch }), db: store.db };
}
