import { test } from "node:test";
import assert from "node:assert/strict";
import { sharedPath } from "bouts:subject";
import { isProblem, issuePaths, start } from "./helpers.mjs";

// Every test starts its own app (a fresh :memory: database) and uses usernames of its own.

test("registers a user", async () => {
  const s = await start();
  try {
    const r = await s.call("POST", "/register", { username: "alice", password: "s3cret-pass" });
    assert.equal(r.status, 201);
    assert.equal(r.json.username, "alice");
    assert.ok(Number.isInteger(r.json.id), `id ${r.json.id} is not an integer`);
  } finally {
    await s.close();
  }
});

test("logs in and receives a token", async () => {
  const s = await start();
  try {
    await s.call("POST", "/register", { username: "bob", password: "s3cret-pass" });
    const ok = await s.call("POST", "/login", { username: "bob", password: "s3cret-pass" });
    assert.equal(ok.status, 200);
    assert.equal(typeof ok.json.token, "string");
    const bad = await s.call("POST", "/login", { username: "bob", password: "wrong-pass" });
    assert.equal(bad.status, 401);
    const nobody = await s.call("POST", "/login", { username: "nobody", password: "s3cret-pass" });
    assert.equal(nobody.status, 401);
  } finally {
    await s.close();
  }
});

test("creates a bookmark", async () => {
  const s = await start();
  try {
    const t = await s.user("carol");
    const r = await s.call(
      "POST",
      "/links",
      { url: "https://nodejs.org/api/sqlite.html", title: "node:sqlite docs", tags: ["docs"] },
      t,
    );
    assert.equal(r.status, 201);
    assert.ok(Number.isInteger(r.json.id), `id ${r.json.id} is not an integer`);
    assert.equal(r.json.url, "https://nodejs.org/api/sqlite.html");
    assert.equal(r.json.title, "node:sqlite docs");
    assert.deepEqual(r.json.tags, ["docs"]);
    assert.ok(!Number.isNaN(Date.parse(r.json.createdAt)), `createdAt ${r.json.createdAt}`);
    // tags are optional: a bookmark without them has none.
    const bare = await s.call("POST", "/links", { url: "https://hono.dev/", title: "Hono" }, t);
    assert.equal(bare.status, 201);
    assert.deepEqual(bare.json.tags, []);
  } finally {
    await s.close();
  }
});

test("lists own bookmarks oldest first", async () => {
  const s = await start();
  try {
    const t = await s.user("dave");
    for (const title of ["first", "second", "third"]) await s.link(t, { title });
    const r = await s.call("GET", "/links", undefined, t);
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.json.map((l) => l.title),
      ["first", "second", "third"],
    );
  } finally {
    await s.close();
  }
});

test("fetches a bookmark by id", async () => {
  const s = await start();
  try {
    const t = await s.user("erin");
    const made = await s.link(t, { url: "https://zod.dev/", title: "Zod", tags: ["validation"] });
    const r = await s.call("GET", `/links/${made?.id}`, undefined, t);
    assert.equal(r.status, 200);
    assert.equal(r.json.id, made.id);
    assert.equal(r.json.url, "https://zod.dev/");
    assert.equal(r.json.title, "Zod");
    assert.deepEqual(r.json.tags, ["validation"]);
  } finally {
    await s.close();
  }
});

test("deletes a bookmark", async () => {
  const s = await start();
  try {
    const t = await s.user("frank");
    const keep = await s.link(t, { title: "keep" });
    const drop = await s.link(t, { title: "drop" });
    const r = await s.call("DELETE", `/links/${drop?.id}`, undefined, t);
    assert.equal(r.status, 204);
    assert.equal((await s.call("GET", `/links/${drop.id}`, undefined, t)).status, 404);
    const list = await s.call("GET", "/links", undefined, t);
    assert.deepEqual(
      list.json.map((l) => l.id),
      [keep.id],
    );
  } finally {
    await s.close();
  }
});

test("filters bookmarks by tag", async () => {
  const s = await start();
  try {
    const t = await s.user("gina");
    await s.link(t, { title: "The Rust Book", tags: ["rust", "books"] });
    await s.link(t, { title: "SICP", tags: ["books"] });
    await s.link(t, { title: "This Week in Rust", tags: ["rust", "news"] });
    const r = await s.call("GET", "/links?tag=rust", undefined, t);
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.json.map((l) => l.title),
      ["The Rust Book", "This Week in Rust"],
    );
    const none = await s.call("GET", "/links?tag=python", undefined, t);
    assert.deepEqual(none.json, []);
  } finally {
    await s.close();
  }
});

test("searches titles case-insensitively", async () => {
  const s = await start();
  try {
    const t = await s.user("hank");
    await s.link(t, { title: "Project Plan" });
    await s.link(t, { title: "shopping list" });
    await s.link(t, { title: "planets for kids" });
    const r = await s.call("GET", "/links?q=PLAN", undefined, t);
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.json.map((l) => l.title),
      ["Project Plan", "planets for kids"],
    );
  } finally {
    await s.close();
  }
});

test("answers tags sorted and without duplicates", async () => {
  const s = await start();
  try {
    const t = await s.user("iris");
    const r = await s.call(
      "POST",
      "/links",
      { url: "https://example.org/", title: "tagged", tags: ["web", "api", "web", "css"] },
      t,
    );
    assert.equal(r.status, 201);
    assert.deepEqual(r.json.tags, ["api", "css", "web"]);
    const g = await s.call("GET", `/links/${r.json.id}`, undefined, t);
    assert.deepEqual(g.json.tags, ["api", "css", "web"]);
  } finally {
    await s.close();
  }
});

test("caps the list with ?limit", async () => {
  const s = await start();
  try {
    const t = await s.user("jack");
    for (const title of ["a", "b", "c", "d", "e"]) await s.link(t, { title });
    const r = await s.call("GET", "/links?limit=2", undefined, t);
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.json.map((l) => l.title),
      ["a", "b"],
    );
    const all = await s.call("GET", "/links", undefined, t);
    assert.equal(all.json.length, 5);
  } finally {
    await s.close();
  }
});

test("rejects a duplicate username", async () => {
  const s = await start();
  try {
    await s.call("POST", "/register", { username: "kate", password: "s3cret-pass" });
    const r = await s.call("POST", "/register", { username: "kate", password: "other-pass" });
    assert.equal(r.status, 409);
    assert.ok(isProblem(r), `not a JSON problem: ${r.text.slice(0, 200)}`);
    // The first registration still stands: its password logs in, the second one's does not.
    const ok = await s.call("POST", "/login", { username: "kate", password: "s3cret-pass" });
    assert.equal(ok.status, 200);
    const other = await s.call("POST", "/login", { username: "kate", password: "other-pass" });
    assert.equal(other.status, 401);
  } finally {
    await s.close();
  }
});

test("rejects an invalid username or password", async () => {
  const s = await start();
  try {
    for (const [username, password, field] of [
      ["x", "long-enough", "username"],
      ["Has Space", "long-enough", "username"],
      ["a".repeat(33), "long-enough", "username"],
      ["leo", "short", "password"],
      ["leo", 12345678, "password"],
    ]) {
      const r = await s.call("POST", "/register", { username, password });
      assert.equal(r.status, 400, `${JSON.stringify([username, password])} gave ${r.status}`);
      assert.ok(isProblem(r), `not a JSON problem: ${r.text.slice(0, 200)}`);
      assert.ok(issuePaths(r.json).includes(field), `no issue names ${field}: ${r.text}`);
    }
    // A refusal counts only beside a working route: a valid registration succeeds.
    const ok = await s.call("POST", "/register", { username: "leo", password: "long-enough" });
    assert.equal(ok.status, 201);
  } finally {
    await s.close();
  }
});

test("answers malformed JSON with a 400 problem", async () => {
  const s = await start();
  try {
    const r = await s.call("POST", "/register", "{not json");
    assert.equal(r.status, 400);
    assert.ok(isProblem(r), `not a JSON problem: ${r.text.slice(0, 200)}`);
    const t = await s.user("mia");
    for (const raw of ['{"url":', "[]", '"just a string"', ""]) {
      const l = await s.call("POST", "/links", raw, t);
      assert.equal(l.status, 400, `${JSON.stringify(raw)} gave ${l.status}`);
      assert.ok(isProblem(l), `not a JSON problem: ${l.text.slice(0, 200)}`);
    }
    // A refusal counts only beside a working route: well-formed JSON is served.
    assert.ok(await s.link(t, { title: "fine" }), "a valid bookmark was refused");
  } finally {
    await s.close();
  }
});

test("rejects a bookmark with a bad url, title or tags", async () => {
  const s = await start();
  try {
    const t = await s.user("nick");
    const ok = { url: "https://example.com/", title: "ok" };
    for (const [body, field] of [
      [{ ...ok, url: "ftp://example.com/file" }, "url"],
      [{ ...ok, url: "not a url" }, "url"],
      [{ title: "no url" }, "url"],
      [{ ...ok, title: "" }, "title"],
      [{ ...ok, title: "t".repeat(201) }, "title"],
      [{ url: "https://example.com/" }, "title"],
      [{ ...ok, tags: "rust" }, "tags"],
    ]) {
      const r = await s.call("POST", "/links", body, t);
      assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 80)} gave ${r.status}`);
      assert.ok(issuePaths(r.json).includes(field), `no issue names ${field}: ${r.text}`);
    }
    for (const tags of [
      ["Not A Tag"],
      [""],
      ["-leading-dash"],
      Array.from({ length: 11 }, (_, i) => `t${i}`),
    ]) {
      const r = await s.call("POST", "/links", { ...ok, tags }, t);
      assert.equal(r.status, 400, `tags ${JSON.stringify(tags)} gave ${r.status}`);
      assert.ok(
        issuePaths(r.json).some((p) => p === "tags" || String(p).startsWith("tags.")),
        `no issue names tags: ${r.text}`,
      );
    }
    // The boundaries themselves are valid.
    const longest = await s.call("POST", "/links", { ...ok, title: "t".repeat(200) }, t);
    assert.equal(longest.status, 201, `a 200-character title gave ${longest.status}`);
    const ten = Array.from({ length: 10 }, (_, i) => `t${i}`);
    const tagged = await s.call("POST", "/links", { ...ok, tags: ten }, t);
    assert.equal(tagged.status, 201, `ten tags gave ${tagged.status}`);
    const bare = await s.call("POST", "/links", { url: "example.com/page", title: "bare" }, t);
    assert.equal(bare.status, 201, `a bare host gave ${bare.status}`);
    assert.equal(bare.json.url, "example.com/page");
  } finally {
    await s.close();
  }
});

test("rejects an invalid limit, tag or id with 400", async () => {
  const s = await start();
  try {
    const t = await s.user("olga");
    const made = await s.link(t, { title: "only" });
    for (const path of [
      "/links?limit=0",
      "/links?limit=101",
      "/links?limit=abc",
      "/links?limit=1.5",
      "/links?limit=-1",
      "/links?tag=Bad%20Tag",
      "/links/abc",
      "/links/0",
      "/links/-3",
    ]) {
      const r = await s.call("GET", path, undefined, t);
      assert.equal(r.status, 400, `${path} gave ${r.status}`);
      assert.ok(isProblem(r), `${path}: not a JSON problem: ${r.text.slice(0, 200)}`);
    }
    assert.equal((await s.call("DELETE", "/links/abc", undefined, t)).status, 400);
    // The boundaries themselves are valid.
    for (const path of ["/links?limit=1", "/links?limit=100", `/links/${made?.id}`]) {
      const r = await s.call("GET", path, undefined, t);
      assert.equal(r.status, 200, `${path} gave ${r.status}`);
    }
  } finally {
    await s.close();
  }
});

test("answers 404 for an unknown bookmark", async () => {
  const s = await start();
  try {
    const t = await s.user("pete");
    const get = await s.call("GET", "/links/99999", undefined, t);
    assert.equal(get.status, 404);
    assert.ok(isProblem(get), `not a JSON problem: ${get.text.slice(0, 200)}`);
    assert.equal((await s.call("DELETE", "/links/99999", undefined, t)).status, 404);
    const route = await s.call("GET", "/no-such-route", undefined, t);
    assert.equal(route.status, 404);
    assert.ok(isProblem(route), `not a JSON problem: ${route.text.slice(0, 200)}`);
    // A refusal counts only beside a working route: the user's own bookmark is found.
    const mine = await s.link(t, { title: "mine" });
    assert.equal((await s.call("GET", `/links/${mine?.id}`, undefined, t)).status, 200);
  } finally {
    await s.close();
  }
});

test("runs auth, validation, errors and headers on one request path", async () => {
  const s = await start();
  try {
    const t = await s.user("quinn");
    const invalid = { url: "javascript:alert(1)", title: "" };
    const check = (r, what) => {
      assert.equal(r.headers.get("x-content-type-options"), "nosniff", `${what}: no nosniff`);
      assert.ok(r.headers.get("x-frame-options"), `${what}: no X-Frame-Options`);
      assert.ok(r.headers.get("x-request-id"), `${what}: no X-Request-Id`);
      if (r.status >= 400) {
        assert.ok(isProblem(r), `${what}: not a JSON problem: ${r.text.slice(0, 200)}`);
        assert.equal(r.json.requestId, r.headers.get("x-request-id"), `${what}: requestId`);
      }
    };
    // Auth comes before validation: no token and an invalid body is a 401, not a 400.
    const anonymous = await s.call("POST", "/links", invalid);
    assert.equal(anonymous.status, 401);
    check(anonymous, "no token");
    // With a token the same body reaches validation, and the caller's request id is kept.
    const refused = await s.call("POST", "/links", invalid, t, { "x-request-id": "trace-abc-123" });
    assert.equal(refused.status, 400);
    check(refused, "invalid body");
    assert.equal(refused.headers.get("x-request-id"), "trace-abc-123");
    assert.ok(issuePaths(refused.json).includes("url"), `no issue names url: ${refused.text}`);
    assert.ok(issuePaths(refused.json).includes("title"), `no issue names title: ${refused.text}`);
    const malformed = await s.call("POST", "/links", "{", t);
    assert.equal(malformed.status, 400);
    check(malformed, "malformed JSON");
    const created = await s.call("POST", "/links", { url: "https://ok.example/", title: "ok" }, t);
    assert.equal(created.status, 201);
    check(created, "valid request");
    // Ids the server makes are its own for each request.
    assert.notEqual(created.headers.get("x-request-id"), malformed.headers.get("x-request-id"));
  } finally {
    await s.close();
  }
});

test("reads its own writes across requests", async () => {
  const s = await start();
  try {
    const t = await s.user("rosa");
    const made = [];
    for (const [title, tags] of [
      ["alpha", ["x"]],
      ["beta", ["x", "y"]],
      ["gamma", ["y"]],
    ]) {
      const r = await s.call(
        "POST",
        "/links",
        { url: `https://${title}.example/`, title, tags },
        t,
      );
      assert.equal(r.status, 201);
      made.push(r.json);
    }
    for (const m of made) {
      const g = await s.call("GET", `/links/${m.id}`, undefined, t);
      assert.deepEqual(g.json, m, `GET /links/${m.id} differs from what POST answered`);
    }
    assert.deepEqual((await s.call("GET", "/links", undefined, t)).json, made);
    assert.equal((await s.call("DELETE", `/links/${made[1].id}`, undefined, t)).status, 204);
    assert.deepEqual(
      (await s.call("GET", "/links", undefined, t)).json.map((l) => l.title),
      ["alpha", "gamma"],
    );
    assert.deepEqual(
      (await s.call("GET", "/links?tag=x", undefined, t)).json.map((l) => l.title),
      ["alpha"],
    );
    assert.equal((await s.call("GET", `/links/${made[1].id}`, undefined, t)).status, 404);
    assert.equal((await s.call("DELETE", `/links/${made[1].id}`, undefined, t)).status, 404);
  } finally {
    await s.close();
  }
});

test("keeps its data in the given database across restarts", async () => {
  const database = sharedPath("links", ".db");
  let made;
  const first = await start({ database });
  try {
    const t = await first.user("sam_restart", "restart-pass-1");
    assert.equal(typeof t, "string", "logging in gave no token");
    made = await first.link(t, { title: "survives", tags: ["keep"] });
    assert.ok(made, "creating a bookmark failed");
  } finally {
    await first.close();
  }
  const second = await start({ database });
  try {
    const again = await second.call("POST", "/register", {
      username: "sam_restart",
      password: "restart-pass-1",
    });
    assert.equal(again.status, 409, "the user was forgotten across the restart");
    const login = await second.call("POST", "/login", {
      username: "sam_restart",
      password: "restart-pass-1",
    });
    assert.equal(login.status, 200, `login after the restart gave ${login.status}`);
    const list = await second.call("GET", "/links", undefined, login.json.token);
    assert.deepEqual(list.json, [made]);
  } finally {
    await second.close();
  }
});

test("combines tag and title filters within one user's bookmarks", async () => {
  const s = await start();
  try {
    const a = await s.user("tina");
    const b = await s.user("umar");
    const mine = await s.link(a, { title: "Rust book", tags: ["rust", "books"] });
    await s.link(a, { title: "Rust blog", tags: ["rust"] });
    await s.link(a, { title: "Go book", tags: ["go", "books"] });
    const theirs = await s.link(b, { title: "Rust book", tags: ["rust", "books"] });
    const both = await s.call("GET", "/links?tag=books&q=rust", undefined, a);
    assert.equal(both.status, 200);
    assert.deepEqual(
      both.json.map((l) => l.id),
      [mine.id],
    );
    const other = await s.call("GET", "/links?tag=books&q=rust&limit=5", undefined, b);
    assert.deepEqual(
      other.json.map((l) => l.id),
      [theirs.id],
    );
    const capped = await s.call("GET", "/links?tag=rust&limit=1", undefined, a);
    assert.deepEqual(
      capped.json.map((l) => l.title),
      ["Rust book"],
    );
  } finally {
    await s.close();
  }
});
