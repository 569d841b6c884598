/**
 * @module adversarial/write-http
 * Writes HTTP candidates as one node:test file: the declared interface embedded as data, a
 * small client, and one helper per oracle. Every test builds a fresh server from the
 * submission's factory, listens on a loopback port inside the sandbox and closes it after.
 * Pure.
 */
import type { HttpInterface } from "@bouts/contracts";
import type { HttpCandidate } from "./http.ts";
import { jsTestName } from "./write-module.ts";

const HTTP_HELPERS = String.raw`
const ROUTES = new Map(IFACE.routes.map((r) => [r.id, r]));
const STAMP = process.pid.toString(36) + Date.now().toString(36).slice(-3);
let seq = 0;
function unique(base, max = 32) {
  seq += 1;
  const tail = STAMP + seq.toString(36);
  return String(base).slice(0, Math.max(1, max - tail.length)) + tail;
}
function fill(template, user) {
  return JSON.parse(JSON.stringify(template).replaceAll("{{user}}", user));
}
async function start() {
  const factory = mod[IFACE.factory] ?? mod.default?.[IFACE.factory];
  if (typeof factory !== "function") throw new Error("the module does not export " + IFACE.factory);
  const made = await factory();
  const server = made && typeof made.listen === "function" ? made : made?.server;
  if (!server || typeof server.listen !== "function") throw new Error(IFACE.factory + " returned no server");
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const base = "http://127.0.0.1:" + server.address().port;
  const close = () =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return { base, close };
}
async function withServer(fn) {
  const s = await start();
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}
async function send(s, method, path, { body, raw, query, token, header } = {}) {
  const headers = { "content-type": "application/json", connection: "close" };
  if (header !== undefined) {
    if (header !== null) headers.authorization = header;
  } else if (token) headers.authorization = "Bearer " + token;
  const qs = query ? "?" + new URLSearchParams(query).toString() : "";
  const res = await fetch(s.base + path + qs, {
    method,
    headers,
    body: raw !== undefined ? raw : body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch {}
  return { status: res.status, json, text, type: res.headers.get("content-type") ?? "" };
}
function validBody(r) {
  if (!r.body) return undefined;
  const b = {};
  for (const f of r.body) {
    let v = structuredClone(f.example);
    if (r.unique?.field === f.name && typeof v === "string") v = unique(v, f.maxLength ?? 32);
    b[f.name] = v;
  }
  return b;
}
async function register(s) {
  const user = unique("u", 24);
  const a = IFACE.auth;
  const res = await send(s, a.register.method, a.register.path, { body: fill(a.register.body, user) });
  assert.ok(res.status >= 200 && res.status < 300, "setup: registering a user answered " + res.status);
  return user;
}
async function login(s) {
  const a = IFACE.auth;
  const user = await register(s);
  const res = await send(s, a.login.method, a.login.path, { body: fill(a.login.body, user) });
  const token = res.json?.[a.tokenField];
  assert.equal(typeof token, "string", "setup: logging in gave no token (status " + res.status + ")");
  return token;
}
async function alive(s, r) {
  if (IFACE.auth) {
    await login(s);
    return;
  }
  const res = await send(s, r.method, r.path, { body: validBody(r) });
  assert.equal(res.status, r.successStatus, "the server no longer serves a valid request");
}
function build(r, c, body = validBody(r)) {
  if (c.raw !== undefined) return { raw: c.raw };
  if (body && c.set) Object.assign(body, c.set);
  if (body && c.omit) delete body[c.omit];
  if (body && c.repeat) body[c.repeat.field] = "a".repeat(c.repeat.times);
  return { body, query: c.query };
}
function where(r) {
  return r.method + " " + r.path;
}
function assertNoServerError(r, res) {
  assert.ok(res.status < 500, where(r) + " failed with " + res.status + ": " + res.text.slice(0, 200));
}
async function refuses(c) {
  await withServer(async (s) => {
    const r = ROUTES.get(c.route);
    const token = r.auth ? await login(s) : undefined;
    let body = validBody(r);
    if (c.registered) body = fill(IFACE.auth.login.body, await register(s));
    const res = await send(s, r.method, r.path, { ...build(r, c, body), token });
    assertNoServerError(r, res);
    assert.ok(res.status >= 400, where(r) + " accepted it with " + res.status + " (expected 4xx)");
    await alive(s, r);
  });
}
async function accepts(c) {
  await withServer(async (s) => {
    const r = ROUTES.get(c.route);
    const token = r.auth ? await login(s) : undefined;
    const res = await send(s, r.method, r.path, { ...build(r, c), token });
    assertNoServerError(r, res);
    if (!c.orRefuses) assert.equal(res.status, r.successStatus, where(r) + " refused a valid request");
    await alive(s, r);
  });
}
async function readBack(s, r, created, token) {
  if (r.readBack) {
    const id = created.json?.[r.readBack.idField];
    assert.ok(id !== undefined && id !== null, "the answer carries no " + r.readBack.idField);
    const got = await send(s, "GET", r.readBack.path.replace(":id", encodeURIComponent(String(id))), { token });
    assert.equal(got.status, 200, r.readBack.path + " answered " + got.status);
    return [got];
  }
  const list = await send(s, "GET", r.list, { token });
  assert.equal(list.status, 200, r.list + " answered " + list.status);
  return [list];
}
async function roundTrip(c) {
  await withServer(async (s) => {
    const r = ROUTES.get(c.route);
    const token = r.auth ? await login(s) : undefined;
    const body = validBody(r);
    body[c.field] = c.value;
    const res = await send(s, r.method, r.path, { body, token });
    assertNoServerError(r, res);
    if (res.status >= 400) return; // refusing hostile text is a defensible choice
    assert.equal(res.status, r.successStatus);
    const [got] = await readBack(s, r, res, token);
    assert.match(got.type, /json/, "stored text is served as " + got.type + ", not JSON");
    const items = Array.isArray(got.json) ? got.json : [got.json];
    assert.ok(items.some((i) => i?.[c.field] === c.value), c.field + " did not come back byte for byte");
  });
}
async function noLeak(c) {
  await withServer(async (s) => {
    const r = ROUTES.get(c.route);
    const creator = ROUTES.get(c.creator);
    const owner = await login(s);
    const marker = unique("secret", 24);
    const body = validBody(creator);
    for (const f of creator.body ?? []) if (f.type === "string") body[f.name] = marker;
    const made = await send(s, creator.method, creator.path, { body, token: owner });
    assert.equal(made.status, creator.successStatus, "setup: creating data answered " + made.status);
    const other = await login(s);
    const res = await send(s, r.method, r.path, { query: { [c.param]: c.value }, token: other });
    assertNoServerError(r, res);
    assert.ok(!res.text.includes(marker), where(r) + " returned another user's data");
  });
}
async function unauthorized(c) {
  await withServer(async (s) => {
    const r = ROUTES.get(c.route);
    await login(s);
    const res = await send(s, r.method, r.path, { body: validBody(r), header: c.header });
    assertNoServerError(r, res);
    assert.ok(
      res.status === r.unauthorizedStatus || res.status === 401 || res.status === 403,
      where(r) + " answered " + res.status + " (expected " + r.unauthorizedStatus + ")",
    );
    await alive(s, r);
  });
}
async function otherUserRead(c) {
  await withServer(async (s) => {
    const r = ROUTES.get(c.route);
    const owner = await login(s);
    const marker = unique("private", 24);
    const body = validBody(r);
    for (const f of r.body ?? []) if (f.type === "string" && !f.maxLength) body[f.name] = marker;
    const made = await send(s, r.method, r.path, { body, token: owner });
    assert.equal(made.status, r.successStatus, "setup: creating data answered " + made.status);
    const id = made.json?.[r.readBack.idField];
    const other = await login(s);
    const got = await send(s, "GET", r.readBack.path.replace(":id", encodeURIComponent(String(id))), { token: other });
    assertNoServerError(r, got);
    assert.ok(got.status >= 400, r.readBack.path + " showed one user's data to another (" + got.status + ")");
  });
}
async function concurrentUnique(c) {
  await withServer(async (s) => {
    const r = ROUTES.get(c.route);
    const token = r.auth ? await login(s) : undefined;
    const body = validBody(r);
    const all = await Promise.all(Array.from({ length: 12 }, () => send(s, r.method, r.path, { body, token })));
    const statuses = all.map((x) => x.status);
    assert.equal(statuses.filter((x) => x === r.successStatus).length, 1, "accepted: " + statuses.join(","));
    assert.ok(statuses.every((x) => x === r.successStatus || x === r.unique.conflictStatus), "answers: " + statuses.join(","));
  });
}
async function concurrentCreates(c) {
  await withServer(async (s) => {
    const r = ROUTES.get(c.route);
    const token = r.auth ? await login(s) : undefined;
    const all = await Promise.all(Array.from({ length: 25 }, () => send(s, r.method, r.path, { body: validBody(r), token })));
    const statuses = all.map((x) => x.status);
    assert.ok(statuses.every((x) => x === r.successStatus), "answers: " + statuses.join(","));
    const list = await send(s, "GET", r.list, { token });
    assert.equal(list.status, 200);
    assert.ok(Array.isArray(list.json), r.list + " is not a JSON array");
    const idField = r.readBack?.idField ?? "id";
    const ids = new Set(list.json.map((i) => JSON.stringify(i?.[idField])));
    assert.equal(list.json.length, 25, r.list + " lists " + list.json.length + " of 25 creations");
    assert.equal(ids.size, 25, "creations share ids");
  });
}
`;

/** The node:test file for `chosen`. */
export function writeHttpJs(iface: HttpInterface, chosen: readonly HttpCandidate[]): string {
  const lines = [
    "// Generated adversarial tests (deterministic generator). Do not edit: rewritten per run.",
    'import { test } from "node:test";',
    'import assert from "node:assert/strict";',
    `import * as mod from ${JSON.stringify(`../../${iface.module}`)};`,
    "",
    `const IFACE = JSON.parse(${JSON.stringify(JSON.stringify(iface))});`,
    HTTP_HELPERS,
  ];
  for (const c of chosen)
    lines.push(
      `test(${JSON.stringify(jsTestName(c))}, async () => {`,
      `  await ${c.op.helper}(JSON.parse(${JSON.stringify(JSON.stringify(c.op.config))}));`,
      "});",
      "",
    );
  return lines.join("\n");
}
