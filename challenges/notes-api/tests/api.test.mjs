import { test } from "node:test";
import assert from "node:assert/strict";
import { start } from "./helpers.mjs";

test("registers a user", async () => {
  const s = await start();
  try {
    const r = await s.call("POST", "/register", { username: "alice", password: "s3cret-pass" });
    assert.equal(r.status, 201);
    assert.equal(r.json.username, "alice");
    assert.ok(r.json.id);
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
  } finally {
    await s.close();
  }
});

test("creates and lists a note", async () => {
  const s = await start();
  try {
    const t = await s.user("carol");
    const c = await s.call("POST", "/notes", { title: "groceries", body: "milk" }, t);
    assert.equal(c.status, 201);
    assert.equal(c.json.title, "groceries");
    const l = await s.call("GET", "/notes", undefined, t);
    assert.equal(l.status, 200);
    assert.deepEqual(
      l.json.map((n) => n.title),
      ["groceries"],
    );
  } finally {
    await s.close();
  }
});

test("fetches a note by id", async () => {
  const s = await start();
  try {
    const t = await s.user("dave");
    const c = await s.call("POST", "/notes", { title: "todo", body: "write tests" }, t);
    const g = await s.call("GET", `/notes/${c.json.id}`, undefined, t);
    assert.equal(g.status, 200);
    assert.equal(g.json.body, "write tests");
  } finally {
    await s.close();
  }
});

test("rejects a duplicate username", async () => {
  const s = await start();
  try {
    await s.call("POST", "/register", { username: "erin", password: "s3cret-pass" });
    const r = await s.call("POST", "/register", { username: "erin", password: "other-pass" });
    assert.equal(r.status, 409);
  } finally {
    await s.close();
  }
});

test("rejects a short password", async () => {
  const s = await start();
  try {
    const r = await s.call("POST", "/register", { username: "frank", password: "short" });
    assert.equal(r.status, 400);
    const r2 = await s.call("POST", "/register", { username: "x", password: "long-enough" });
    assert.equal(r2.status, 400);
    // A refusal counts only beside a working route: a valid registration succeeds.
    const r3 = await s.call("POST", "/register", { username: "frank", password: "long-enough" });
    assert.equal(r3.status, 201);
  } finally {
    await s.close();
  }
});

test("answers malformed JSON with 400", async () => {
  const s = await start();
  try {
    const r = await s.call("POST", "/register", "{not json");
    assert.equal(r.status, 400);
    // A refusal counts only beside a working route: well-formed JSON is served.
    const ok = await s.call("POST", "/register", { username: "ivan", password: "s3cret-pass" });
    assert.equal(ok.status, 201);
  } finally {
    await s.close();
  }
});

test("answers 404 for an unknown note", async () => {
  const s = await start();
  try {
    const t = await s.user("gina");
    const r = await s.call("GET", "/notes/99999", undefined, t);
    assert.equal(r.status, 404);
    // A refusal counts only beside a working route: the user's own note is found.
    const n = await s.call("POST", "/notes", { title: "mine", body: "x" }, t);
    assert.equal((await s.call("GET", `/notes/${n.json?.id}`, undefined, t)).status, 200);
  } finally {
    await s.close();
  }
});

test("searches own notes by title", async () => {
  const s = await start();
  try {
    const t = await s.user("hank");
    await s.call("POST", "/notes", { title: "Project Plan", body: "a" }, t);
    await s.call("POST", "/notes", { title: "shopping", body: "b" }, t);
    const r = await s.call("GET", "/notes?q=plan", undefined, t);
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.json.map((n) => n.title),
      ["Project Plan"],
    );
  } finally {
    await s.close();
  }
});

test("lists notes in creation order across requests", async () => {
  const s = await start();
  try {
    const t = await s.user("iris");
    for (const title of ["one", "two", "three"])
      await s.call("POST", "/notes", { title, body: "" }, t);
    const r = await s.call("GET", "/notes", undefined, t);
    assert.deepEqual(
      r.json.map((n) => n.title),
      ["one", "two", "three"],
    );
  } finally {
    await s.close();
  }
});
