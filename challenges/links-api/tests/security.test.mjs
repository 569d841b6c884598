import { test } from "node:test";
import assert from "node:assert/strict";
import { databaseHolds, readSharedDatabase, sharedPath } from "bouts:subject";
import { start } from "./helpers.mjs";

test("title and tag search are not injectable", async () => {
  const s = await start();
  try {
    const a = await s.user("victim");
    assert.ok(await s.link(a, { title: "victim secret", tags: ["private"] }), "setup failed");
    const m = await s.user("mallory");
    assert.ok(await s.link(m, { title: "mallory note", tags: ["mine"] }), "setup failed");
    const probes = [
      ["q", "' OR 1=1 --"],
      ["q", "' OR '1'='1"],
      ["q", "x') OR 1=1 --"],
      ["q", "%' OR 1=1 --"],
      ["q", "' UNION SELECT id, url, title, tags, created_at FROM links --"],
      ["tag", "' OR 1=1 --"],
      ["tag", "private' OR '1'='1"],
      ["tag", "mine' OR 1=1 --"],
    ];
    for (const [param, value] of probes) {
      const r = await s.call("GET", `/links?${param}=${encodeURIComponent(value)}`, undefined, m);
      assert.ok(r.status === 200 || r.status === 400, `?${param}=${value}: status ${r.status}`);
      assert.ok(!r.text.includes("victim secret"), `?${param}=${value} leaked another user's data`);
      if (r.status === 200) assert.deepEqual(r.json, [], `?${param}=${value} matched ${r.text}`);
    }
    // LIKE wildcards are text, not patterns: no title contains them.
    for (const value of ["%", "_"]) {
      const r = await s.call("GET", `/links?q=${encodeURIComponent(value)}`, undefined, m);
      if (r.status === 200) assert.deepEqual(r.json, [], `?q=${value} matched ${r.text}`);
    }
    // A refusal counts only beside a working search: each owner still finds their own.
    const own = await s.call("GET", "/links?q=secret", undefined, a);
    assert.equal(own.status, 200, `the owner's own search answered ${own.status}`);
    assert.deepEqual(
      own.json?.map((l) => l.title),
      ["victim secret"],
    );
    const tagged = await s.call("GET", "/links?tag=mine", undefined, m);
    assert.deepEqual(
      tagged.json?.map((l) => l.title),
      ["mallory note"],
    );
  } finally {
    await s.close();
  }
});

test("cannot read or delete another user's bookmark", async () => {
  const s = await start();
  try {
    const a = await s.user("owner");
    const made = await s.link(a, { title: "mine", tags: ["private"] });
    assert.ok(made, "setup failed");
    const b = await s.user("intruder");
    assert.equal(typeof b, "string", "setup failed");
    const r = await s.call("GET", `/links/${made.id}`, undefined, b);
    assert.equal(r.status, 404, `reading another user's bookmark gave ${r.status}`);
    const d = await s.call("DELETE", `/links/${made.id}`, undefined, b);
    assert.equal(d.status, 404, `deleting another user's bookmark gave ${d.status}`);
    assert.deepEqual((await s.call("GET", "/links", undefined, b)).json, []);
    assert.deepEqual((await s.call("GET", "/links?tag=private", undefined, b)).json, []);
    // The owner's bookmark is untouched.
    const still = await s.call("GET", `/links/${made.id}`, undefined, a);
    assert.equal(still.status, 200, `the owner's own bookmark answered ${still.status}`);
    assert.equal(still.json.title, "mine");
  } finally {
    await s.close();
  }
});

test("rejects requests without a valid token", async () => {
  const s = await start();
  try {
    const token = await s.user("tess");
    assert.equal(typeof token, "string", "logging in gave no token");
    const made = await s.link(token, { title: "guarded" });
    assert.ok(made, "setup failed");
    const forged = [
      ["no header", { authorization: null }],
      ["an unknown token", { authorization: "Bearer not-a-token" }],
      ["an empty token", { authorization: "Bearer " }],
      ["a tautology", { authorization: "Bearer ' OR '1'='1" }],
      ["the token without Bearer", { authorization: token }],
      ["basic auth", { authorization: `Basic ${Buffer.from("tess:x").toString("base64")}` }],
      [
        "a changed token",
        { authorization: `Bearer ${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}` },
      ],
    ];
    for (const [label, headers] of forged) {
      for (const [method, path, body] of [
        ["GET", "/links"],
        ["GET", `/links/${made.id}`],
        ["POST", "/links", { url: "https://x.example/", title: "sneaky" }],
        ["DELETE", `/links/${made.id}`],
      ]) {
        const r = await s.call(method, path, body, undefined, headers);
        assert.equal(r.status, 401, `${method} ${path} with ${label} gave ${r.status}`);
      }
    }
    // A refusal counts only beside a working route: a valid token is served, and nothing the
    // refused requests tried happened.
    const list = await s.call("GET", "/links", undefined, token);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.json.map((l) => l.title),
      ["guarded"],
    );
  } finally {
    await s.close();
  }
});

test("does not store plaintext passwords", async () => {
  // The challenge fixes where the database lives: a path in the folder shared with the
  // submission's process, read here after the app is closed (not through the app's own `db`).
  const database = sharedPath("links", ".db");
  const s = await start({ database });
  try {
    const r = await s.call("POST", "/register", {
      username: "jane_canary",
      password: "plaintext-canary-42",
    });
    assert.equal(r.status, 201, `register gave ${r.status}`);
    const login = await s.call("POST", "/login", {
      username: "jane_canary",
      password: "plaintext-canary-42",
    });
    assert.equal(login.status, 200, `login gave ${login.status}`);
  } finally {
    await s.close();
  }
  const stored = readSharedDatabase(database);
  assert.ok(stored, "the app kept no SQLite database at the path createApp was given");
  assert.ok(
    databaseHolds(stored, "jane_canary"),
    "the user is not in the database at the given path: the app stores its data elsewhere",
  );
  assert.ok(!databaseHolds(stored, "plaintext-canary-42"), "the database holds the password");
});

test("serves an XSS-shaped title as JSON with nosniff", async () => {
  const s = await start();
  try {
    const t = await s.user("xena");
    const title = `<script>alert(document.cookie)</script><img src=x onerror="alert(1)">`;
    const made = await s.call("POST", "/links", { url: "https://x.example/", title }, t);
    assert.equal(made.status, 201, `creating it gave ${made.status}`);
    for (const path of [`/links/${made.json.id}`, "/links"]) {
      const r = await s.call("GET", path, undefined, t);
      assert.equal(r.status, 200);
      assert.match(r.headers.get("content-type") ?? "", /^application\/json/, `${path} type`);
      assert.equal(r.headers.get("x-content-type-options"), "nosniff", `${path}: no nosniff`);
      const item = Array.isArray(r.json) ? r.json[0] : r.json;
      assert.equal(item?.title, title, `${path} did not return the title as data, unchanged`);
    }
    // A script URL is refused: it would run when a client renders the bookmark as a link.
    for (const url of [
      "javascript:alert(document.cookie)",
      "JavaScript:alert(1)",
      " javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
    ]) {
      const r = await s.call("POST", "/links", { url, title: "click me" }, t);
      assert.equal(r.status, 400, `url ${JSON.stringify(url)} gave ${r.status}`);
    }
  } finally {
    await s.close();
  }
});

test("ignores or refuses mass-assigned fields", async () => {
  const s = await start();
  try {
    const v = await s.user("vera");
    const victims = await s.link(v, { title: "vera's" });
    assert.ok(victims, "setup failed");
    const m = await s.user("mallory");
    const r = await s.call(
      "POST",
      "/links",
      {
        url: "https://evil.example/",
        title: "planted",
        id: victims.id,
        user_id: 1,
        userId: 1,
        owner: "vera",
        createdAt: "1970-01-01T00:00:00.000Z",
      },
      m,
    );
    assert.ok(r.status === 201 || r.status === 400, `status ${r.status}`);
    if (r.status === 201) {
      assert.notEqual(r.json.id, victims.id, "the caller chose the bookmark's id");
      assert.notEqual(r.json.createdAt, "1970-01-01T00:00:00.000Z", "the caller chose createdAt");
      const mine = await s.call("GET", "/links", undefined, m);
      assert.deepEqual(
        mine.json.map((l) => l.title),
        ["planted"],
      );
    }
    // The victim's data is as it was.
    const theirs = await s.call("GET", "/links", undefined, v);
    assert.deepEqual(theirs.json, [victims]);
    // Registering with extra fields cannot take over an existing user's id.
    const reg = await s.call("POST", "/register", {
      username: "mallory2",
      password: "long-enough",
      id: 1,
      role: "admin",
    });
    assert.ok(reg.status === 201 || reg.status === 400, `register status ${reg.status}`);
    if (reg.status === 201) assert.notEqual(reg.json.id, 1, "the caller chose the user id");
    const vera = await s.call("POST", "/login", {
      username: "vera",
      password: "correct horse battery",
    });
    assert.equal(vera.status, 200, "the victim can no longer log in");
  } finally {
    await s.close();
  }
});

test("refuses over-long input without a server error", async () => {
  const s = await start();
  try {
    const t = await s.user("walt");
    const ok = { url: "https://example.com/", title: "ok" };
    for (const [label, body] of [
      ["a 201-character title", { ...ok, title: "t".repeat(201) }],
      ["a 2100-character url", { ...ok, url: `https://example.com/${"a".repeat(2100)}` }],
      ["11 tags", { ...ok, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }],
      ["a 33-character tag", { ...ok, tags: ["t".repeat(33)] }],
      ["a 200 kB title", { ...ok, title: "t".repeat(200_000) }],
    ]) {
      const r = await s.call("POST", "/links", body, t);
      assert.ok(r.status === 400 || r.status === 413, `${label} gave ${r.status}`);
    }
    const long = await s.call("GET", `/links?q=${"q".repeat(201)}`, undefined, t);
    assert.equal(long.status, 400, `a 201-character search gave ${long.status}`);
    const pw = await s.call("POST", "/register", {
      username: "walt2",
      password: "p".repeat(10_000),
    });
    assert.ok(
      pw.status === 400 || pw.status === 413,
      `a 10,000-character password gave ${pw.status}`,
    );
    // A refusal counts only beside a working route: nothing was stored and valid input works.
    assert.deepEqual((await s.call("GET", "/links", undefined, t)).json, []);
    assert.ok(await s.link(t, ok), "a valid bookmark was refused");
  } finally {
    await s.close();
  }
});
