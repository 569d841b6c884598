import { test } from "node:test";
import assert from "node:assert/strict";
import { deepMerge } from "../merge.mjs";

test("merges nested objects", () => {
  assert.deepEqual(deepMerge({ a: { b: 1 } }, { a: { c: 2 } }), { a: { b: 1, c: 2 } });
});

test("later sources win on conflicts", () => {
  assert.deepEqual(deepMerge({ a: 1, b: { c: 1 } }, { a: 2, b: { c: 3 } }), { a: 2, b: { c: 3 } });
});

test("does not mutate its inputs", () => {
  const a = { x: { y: 1 } };
  const b = { x: { z: 2 } };
  const out = deepMerge(a, b);
  assert.deepEqual(a, { x: { y: 1 } });
  assert.deepEqual(b, { x: { z: 2 } });
  out.x.y = 99;
  assert.equal(a.x.y, 1);
});

test("replaces arrays instead of merging them", () => {
  assert.deepEqual(deepMerge({ list: [1, 2, 3] }, { list: [4] }), { list: [4] });
});

test("merges any number of sources", () => {
  assert.deepEqual(deepMerge({ a: 1 }, { b: 2 }, { c: 3 }, { a: 4 }), { a: 4, b: 2, c: 3 });
});

test("handles no sources and empty objects", () => {
  assert.deepEqual(deepMerge(), {});
  assert.deepEqual(deepMerge({}, {}), {});
});

test("copies dates and maps by reference, not by key", () => {
  const d = new Date(0);
  const m = new Map([["k", 1]]);
  const out = deepMerge({ d: { x: 1 } }, { d, m });
  assert.equal(out.d, d);
  assert.equal(out.m, m);
});

test("skips undefined values but keeps null", () => {
  assert.deepEqual(deepMerge({ a: 1, b: 2 }, { a: undefined, b: null }), { a: 1, b: null });
});

test("throws TypeError for non-object arguments", () => {
  for (const bad of [null, 1, "s", [], undefined]) {
    assert.throws(() => deepMerge({}, bad), TypeError);
  }
  // A refusal counts only beside a working merge: throwing on everything is not validation.
  assert.deepEqual(deepMerge({ a: { b: 1 } }, { a: { c: 2 } }), { a: { b: 1, c: 2 } });
});

test("layers defaults, file and env config", () => {
  const defaults = {
    server: { port: 80, host: "0.0.0.0", tls: { enabled: false } },
    log: ["info"],
  };
  const file = { server: { port: 8080, tls: { enabled: true, cert: "/c.pem" } } };
  const env = { server: { host: "127.0.0.1" }, log: ["debug"] };
  assert.deepEqual(deepMerge(defaults, file, env), {
    server: { port: 8080, host: "127.0.0.1", tls: { enabled: true, cert: "/c.pem" } },
    log: ["debug"],
  });
  assert.equal(defaults.server.port, 80);
});
