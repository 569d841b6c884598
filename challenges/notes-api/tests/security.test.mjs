import { test } from "node:test";
import assert from "node:assert/strict";
import { databaseHolds, readSharedDatabase, sharedPath } from "bouts:subject";
import { start } from "./helpers.mjs";

test("search is not injectable", async () => {
  const s = await start();
  try {
    const a = await s.user("victim");
    await s.call("POST", "/notes", { title: "victim secret", body: "pin 1234" }, a);
    const m = await s.user("mallory");
    const r = await s.call("GET", `/notes?q=${encodeURIComponent("' OR 1=1 --")}`, undefined, m);
    assert.ok(r.status === 200 || r.status === 400, `status ${r.status}`);
    if (r.status === 200) assert.deepEqual(r.json, []);
    const r2 = await s.call("GET", `/notes?q=${encodeURIComponent("%")}`, undefined, m);
    if (r2.status === 200) assert.deepEqual(r2.json, []);
    // A refusal counts only beside a working search: the victim still finds her own note.
    const own = await s.call("GET", `/notes?q=${encodeURIComponent("secret")}`, undefined, a);
    assert.equal(own.status, 200, `the owner's own search answered ${own.status}`);
    assert.deepEqual(
      own.json?.map((n) => n.title),
      ["victim secret"],
    );
  } finally {
    await s.close();
  }
});

test("login is not injectable", async () => {
  const s = await start();
  try {
    await s.call("POST", "/register", { username: "admin_user", password: "very-long-secret" });
    for (const username of ["admin_user' --", "admin_user'/*", "' OR '1'='1"]) {
      const r = await s.call("POST", "/login", { username, password: "whatever' OR '1'='1" });
      assert.equal(r.status, 401, `login as ${username} gave ${r.status}`);
    }
    // A refusal counts only beside a working login: the real password still logs in.
    const ok = await s.call("POST", "/login", {
      username: "admin_user",
      password: "very-long-secret",
    });
    assert.equal(ok.status, 200, `the valid login answered ${ok.status}`);
    assert.equal(typeof ok.json?.token, "string");
  } finally {
    await s.close();
  }
});

test("cannot read another user's note", async () => {
  const s = await start();
  try {
    const a = await s.user("owner");
    const n = await s.call("POST", "/notes", { title: "mine", body: "private" }, a);
    const b = await s.user("intruder");
    const r = await s.call("GET", `/notes/${n.json.id}`, undefined, b);
    assert.equal(r.status, 404);
    const l = await s.call("GET", "/notes", undefined, b);
    assert.deepEqual(l.json, []);
  } finally {
    await s.close();
  }
});

test("rejects requests without a valid token", async () => {
  const s = await start();
  try {
    assert.equal((await s.call("GET", "/notes")).status, 401);
    assert.equal((await s.call("GET", "/notes", undefined, "not-a-token")).status, 401);
    assert.equal((await s.call("POST", "/notes", { title: "x", body: "y" }, "")).status, 401);
    // A refusal counts only beside a working route: a valid token is served.
    const token = await s.user("tess");
    assert.equal(typeof token, "string", "logging in gave no token");
    assert.equal((await s.call("GET", "/notes", undefined, token)).status, 200);
  } finally {
    await s.close();
  }
});

test("does not store plaintext passwords", async () => {
  // The challenge fixes where the database lives: a path in the folder shared with the
  // submission's process, read here after the app is closed (not through the app's own `db`).
  const database = sharedPath("notes", ".db");
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

test("issues distinct unguessable tokens", async () => {
  const s = await start();
  try {
    await s.call("POST", "/register", { username: "kim", password: "s3cret-pass" });
    const tokens = new Set();
    for (let i = 0; i < 10; i++) {
      const r = await s.call("POST", "/login", { username: "kim", password: "s3cret-pass" });
      assert.ok(r.json.token.length >= 32, `token ${r.json.token} is too short to be unguessable`);
      tokens.add(r.json.token);
    }
    assert.equal(tokens.size, 10);
  } finally {
    await s.close();
  }
});
