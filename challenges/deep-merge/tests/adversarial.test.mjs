import { test } from "node:test";
import assert from "node:assert/strict";
import { pollution } from "bouts:subject";
import { deepMerge } from "../merge.mjs";

/** Every own key anywhere in `value` (work list; data only crosses from the subject). */
function ownKeysDeep(value) {
  const seen = new Set();
  const keys = [];
  const work = [value];
  while (work.length > 0) {
    const v = work.pop();
    if (v === null || typeof v !== "object" || seen.has(v)) continue;
    seen.add(v);
    for (const k of Object.keys(v)) {
      keys.push(k);
      work.push(v[k]);
    }
  }
  return keys;
}

test("does not pollute Object.prototype via __proto__", () => {
  const out = deepMerge({}, JSON.parse('{"__proto__": {"polluted": "yes"}, "a": 1}'));
  // Object.prototype lives in the submission's process: the bridge judges the probe facts of
  // each answer (written with built-ins captured before the submission loaded) itself.
  assert.deepEqual(pollution(), []);
  assert.equal(out.polluted, undefined);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(out.a, 1);
  // Behaviour, judged here from returned data only: a merge that pollutes and walks inherited
  // keys carries the hostile key into a later source's copy within the same call.
  const later = deepMerge({}, JSON.parse('{"__proto__": {"polluted": "yes"}}'), { probe: {} });
  assert.deepEqual(pollution(), []);
  assert.ok(!ownKeysDeep(later).includes("polluted"), "the hostile key reached the result");
});

test("does not pollute via constructor.prototype", () => {
  const out = deepMerge({}, JSON.parse('{"constructor": {"prototype": {"hacked": true}}}'));
  assert.deepEqual(pollution(), []);
  assert.equal(out.hacked, undefined);
});

test("throws on circular sources instead of overflowing the stack", () => {
  const a = { x: {} };
  a.x.self = a;
  const b = { x: {} };
  b.x.self = b;
  assert.throws(() => deepMerge(a, b), TypeError);
  // A refusal counts only beside a working merge: throwing on everything is not a cycle check.
  assert.deepEqual(deepMerge({ x: { y: 1 } }, { x: { z: 2 } }), { x: { y: 1, z: 2 } });
});

test("merges 5000-level deep input without crashing", () => {
  let deep = {};
  const root = deep;
  for (let i = 0; i < 5000; i++) deep = deep.next = {};
  deep.leaf = true;
  const out = deepMerge({}, root);
  let cur = out;
  for (let i = 0; i < 5000; i++) cur = cur.next;
  assert.equal(cur.leaf, true);
});
