// Subject server: `node subject.mjs <absolute module path>`. Loads the submission's module (by
// file URL, nothing else of the challenge), announces its exports, then answers requests from fd 0
// on fd 3, one at a time, in order. Built-in prototypes are checked and restored around each call,
// with references captured before the submission is imported.
import { once } from "node:events";
import { unlinkSync } from "node:fs";
import process from "node:process";
import { setImmediate, setTimeout } from "node:timers";
import { setTimeout as delay } from "node:timers/promises";
import { StringDecoder } from "node:string_decoder";
import { pathToFileURL } from "node:url";
import { decodeGraph, encodeGraph, encodeReply, writeFrameSync } from "./codec.mjs";

const ANSWERS = 3;
const { ownKeys, deleteProperty, defineProperty, getPrototypeOf, setPrototypeOf, apply } = Reflect;
const { getOwnPropertyDescriptor, keys, hasOwn, is } = Object;
const functionToString = Function.prototype.toString;
const PROTOTYPES = [
  ["Object", Object.prototype],
  ["Array", Array.prototype],
  ["Function", Function.prototype],
  ["String", String.prototype],
  ["Number", Number.prototype],
  ["Boolean", Boolean.prototype],
  ["Date", Date.prototype],
  ["RegExp", RegExp.prototype],
  ["Map", Map.prototype],
  ["Set", Set.prototype],
  ["Promise", Promise.prototype],
  ["Error", Error.prototype],
];

function send(frame) {
  writeFrameSync(ANSWERS, frame);
}

function read(obj, key) {
  try {
    return obj[key];
  } catch {
    return undefined;
  }
}

function isThenable(v) {
  return (v !== null && typeof v === "object") || typeof v === "function"
    ? typeof v.then === "function"
    : false;
}

// ---- prototype pollution probe ----

function snapshot() {
  return PROTOTYPES.map(([name, proto]) => {
    const descriptors = new Map();
    for (const key of ownKeys(proto)) descriptors.set(key, getOwnPropertyDescriptor(proto, key));
    return { name, proto, descriptors, parent: getPrototypeOf(proto) };
  });
}

function sameDescriptor(a, b) {
  return (
    is(a.value, b.value) &&
    a.get === b.get &&
    a.set === b.set &&
    a.writable === b.writable &&
    a.enumerable === b.enumerable &&
    a.configurable === b.configurable
  );
}

/** Reports and undoes every change to the built-in prototypes since `snap`. */
function restore(snap) {
  const found = [];
  for (const { name, proto, descriptors, parent } of snap) {
    const label = (key) =>
      typeof key === "symbol"
        ? `${name}.prototype[${String(key.description)}]`
        : `${name}.prototype.${key}`;
    for (const key of ownKeys(proto)) {
      if (descriptors.has(key)) continue;
      found.push(label(key));
      deleteProperty(proto, key);
    }
    for (const [key, d] of descriptors) {
      const now = getOwnPropertyDescriptor(proto, key);
      if (now && sameDescriptor(now, d)) continue;
      found.push(label(key));
      defineProperty(proto, key, d);
    }
    if (getPrototypeOf(proto) !== parent) {
      found.push(`${name}.prototype.__proto__`);
      setPrototypeOf(proto, parent);
    }
  }
  return found;
}

// ---- module ----

let namespace = null;
let loadError = null;

function describe(value, nested) {
  if (typeof value === "function")
    return { kind: /^class\b/.test(functionToString.call(value)) ? "class" : "function" };
  if (!nested && value !== null && typeof value === "object") {
    const members = keys(value);
    if (members.some((m) => typeof read(value, m) === "function")) {
      const described = {};
      for (const m of members) described[m] = describe(read(value, m), true);
      return { kind: "namespace", members: described };
    }
  }
  try {
    return { kind: "value", value: encodeGraph([value]) };
  } catch {
    return { kind: "value", value: encodeGraph([undefined]) };
  }
}

/** The function an export or `export.member` name refers to, and its `this`. */
function resolve(name) {
  if (loadError !== null) throw loadError;
  if (typeof name !== "string") throw new TypeError("bouts: a request has no name");
  let fn;
  let self;
  if (hasOwn(namespace, name)) fn = namespace[name];
  else {
    const dot = name.indexOf(".");
    const holder =
      dot > 0 && hasOwn(namespace, name.slice(0, dot)) ? namespace[name.slice(0, dot)] : null;
    if (holder !== null && typeof holder === "object") {
      self = holder;
      fn = read(holder, name.slice(dot + 1));
    }
  }
  if (typeof fn !== "function")
    throw new TypeError(`bouts: the module exports no function ${name}`);
  return { fn, self };
}

// ---- requests ----

function answer(t, id, objects, value, async = false, pollution = []) {
  let reply;
  try {
    reply = encodeReply(objects, value);
    send({ t, id, async, effects: { pollution }, reply });
    return;
  } catch (e) {
    const error = new TypeError(
      `bouts: the ${t === "return" ? "result" : "exception"} cannot be sent: ${e?.message}`,
    );
    reply = encodeReply([], error);
  }
  send({ t: "throw", id, async, effects: { pollution }, reply });
}

async function call({ id, name, args }) {
  let objects;
  let fn;
  let self;
  let roots;
  try {
    ({ fn, self } = resolve(name));
    ({ roots, objects } = decodeGraph(args));
  } catch (e) {
    answer("throw", id, [], e);
    return;
  }
  const snap = snapshot();
  let ok = true;
  let async = false;
  let value;
  try {
    value = apply(fn, self, roots);
    if (isThenable(value)) {
      async = true;
      value = await value;
    }
  } catch (e) {
    ok = false;
    value = e;
  }
  const pollution = restore(snap);
  answer(ok ? "return" : "throw", id, objects, value, async, pollution);
}

const servers = new Map();
/** What each factory returned, by socket (for the `db` probe). */
const apps = new Map();

function isServer(v) {
  return (
    v !== null &&
    typeof v === "object" &&
    typeof v.address === "function" &&
    typeof v.close === "function"
  );
}

/**
 * Over TCP, a server that destroys a connection mid-request (refusing a huge body) still gets
 * its answer to the client before the reset. Over the Unix socket the proxy's pending write
 * fails first and the answer is lost, so a destroy without an error becomes: end after the
 * answer, drop the rest of the request, destroy after 2 s.
 */
function closeLikeTcp(socket) {
  const destroy = socket.destroy.bind(socket);
  realDestroy.set(socket, destroy);
  socket.once("close", () => realDestroy.delete(socket));
  socket.destroy = (error) => {
    if (error) return destroy(error);
    socket.end();
    socket.on("data", () => undefined);
    socket.resume();
    setTimeout(() => destroy(), 2000).unref();
    return socket;
  };
}
/** Each accepted socket's own destroy, for closing a server at once (http-close). */
const realDestroy = new Map();

async function httpOpen({ id, factory, socket }) {
  try {
    if (typeof socket !== "string") throw new TypeError("bouts: http-open has no socket path");
    const { fn, self } = resolve(factory);
    let made = apply(fn, self, []);
    if (isThenable(made)) made = await made;
    const target = typeof read(made, "listen") === "function" ? made : read(made, "server");
    if (target === null || typeof target !== "object" || typeof target.listen !== "function")
      throw new TypeError(
        `bouts: ${factory}() returned neither a server nor an object with a server`,
      );
    // The trusted test process runs as another uid: it must be allowed to connect.
    let listened = target.listen({ path: socket, readableAll: true, writableAll: true });
    if (isThenable(listened)) listened = await listened; // fastify-style listen
    // app.listen() (express, koa) returns the http.Server it made; a server returns itself.
    const server = [listened, target, read(made, "server")].find(isServer);
    if (!server) throw new TypeError(`bouts: ${factory}() made no server that can be closed`);
    if (!server.listening) {
      await new Promise((resolve, reject) => {
        const done = (e) => {
          server.off("listening", done).off("error", done);
          if (e) reject(e);
          else resolve();
        };
        server.on("listening", done).on("error", done);
      });
    }
    server.on("connection", closeLikeTcp);
    servers.set(socket, server);
    apps.set(socket, made);
    send({ t: "http-ready", id });
  } catch (e) {
    answer("throw", id, [], e);
  }
}

/**
 * The `db` probe: runs a test's SQL on the database the factory exposed as `db` (node:sqlite's
 * `prepare(sql).all/get/run(...params)`), so storage can be checked, e.g. for plaintext passwords.
 */
async function httpSql({ id, socket, sql, method, params }) {
  try {
    const db = read(apps.get(socket), "db");
    if (db === null || typeof db !== "object" || typeof db.prepare !== "function")
      throw new TypeError("bouts: the app exposes no `db` with prepare(sql)");
    if (typeof sql !== "string") throw new TypeError("bouts: the SQL must be a string");
    if (!["all", "get", "run"].includes(method)) throw new TypeError("bouts: all, get or run");
    const args = params === undefined ? [] : decodeGraph(params).roots;
    const statement = db.prepare(sql);
    let rows = apply(statement[method], statement, args);
    if (isThenable(rows)) rows = await rows;
    answer("return", id, [], rows);
  } catch (e) {
    answer("throw", id, [], e);
  }
}

async function httpClose({ id, socket }) {
  const server = servers.get(socket);
  servers.delete(socket);
  apps.delete(socket);
  if (server) {
    try {
      server.closeAllConnections?.();
      for (const [socket, destroy] of realDestroy) if (socket.server === server) destroy();
      const closed = once(server, "close").catch(() => {});
      server.close();
      await Promise.race([closed, delay(1000)]);
    } catch {
      // already closed
    }
    try {
      unlinkSync(socket);
    } catch {
      // removed by close
    }
  }
  send({ t: "http-closed", id });
}

async function handle(line) {
  let frame;
  try {
    frame = JSON.parse(line);
  } catch {
    answer("throw", null, [], new TypeError("bouts: a request is not JSON"));
    return;
  }
  if (frame === null || typeof frame !== "object") {
    answer("throw", null, [], new TypeError("bouts: a request is not an object"));
    return;
  }
  switch (frame.t) {
    case "call":
      return call(frame);
    case "http-open":
      return httpOpen(frame);
    case "http-close":
      return httpClose(frame);
    case "http-sql":
      return httpSql(frame);
  }
  answer(
    "throw",
    frame.id ?? null,
    [],
    new TypeError(`bouts: unknown request ${JSON.stringify(frame.t)}`),
  );
}

async function serve() {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  for await (const chunk of process.stdin) {
    pending += decoder.write(chunk);
    let start = 0;
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n", start)) {
      const line = pending.slice(start, nl);
      start = nl + 1;
      if (line.trim() === "") continue;
      // Run each request in a fresh macrotask: inside the stream iterator's continuation
      // V8 has far less stack left, and a recursive solution that works in a plain process
      // (deep-merge's 5000-level input) would overflow here.
      await new Promise((resolve) => setImmediate(resolve));
      await handle(line);
    }
    pending = pending.slice(start);
  }
}

const modulePath = process.argv[2];
try {
  if (typeof modulePath !== "string" || !modulePath.startsWith("/"))
    throw new TypeError("bouts: the subject needs an absolute module path");
  namespace = await import(pathToFileURL(modulePath).href);
  const exports = {};
  for (const name of keys(namespace)) exports[name] = describe(read(namespace, name), false);
  send({ t: "ready", v: 1, exports });
} catch (e) {
  loadError = e ?? new Error("bouts: the module failed to load");
  let error;
  try {
    error = encodeGraph([loadError]);
  } catch {
    error = encodeGraph([new Error("bouts: the module failed to load")]);
  }
  send({ t: "load-error", v: 1, error });
}
await serve();
// The host closed the request channel: nothing more will be asked.
process.exit(0);
