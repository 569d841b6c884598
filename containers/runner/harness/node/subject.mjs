// Subject server: `node subject.mjs <absolute module path>`. Loads the submission's module (by
// file URL, nothing else of the challenge), announces its exports, then answers requests from fd 0
// on fd 3, one at a time, in order. Invariants: the probe, the answer's serialization and the
// writes and reads on fds 0 and 3 use only built-ins captured before the submission was imported
// (primordials.mjs), so replacing globals, prototype methods or `fs` exports changes nothing this
// server reports; the built-in prototypes are compared with the state they had once the module
// loaded, before each call (changes made between calls), after it and again after the reply is
// encoded (getters run while encoding), and restored each time; every answer echoes the request's
// nonce `n` and carries the raw probe facts (`inherited`, `shape`) the trusted bridge judges
// itself (docs/subject-protocol.md, "Side effects inside the subject: probes").
import { once } from "node:events";
import { unlinkSync } from "node:fs";
import process from "node:process";
import { setImmediate, setTimeout } from "node:timers";
import { setTimeout as delay } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { decodeGraph, encodeGraph, encodeReply, writeFrameSync } from "./codec.mjs";
import {
  append,
  BufferAllocUnsafe,
  BufferConcat,
  BufferPrototypeIndexOf,
  BufferPrototypeSubarray,
  BufferPrototypeToString,
  fsRead,
  fsStat,
  PROBED_PROTOTYPES,
  FunctionPrototypeToString,
  JSONParse,
  MapConstructor,
  MapPrototypeGet,
  MapPrototypeHas,
  MapPrototypeSet,
  ObjectGetOwnPropertyDescriptor,
  ObjectHasOwn,
  ObjectIs,
  ObjectKeys,
  ownValue,
  PromiseConstructor,
  ReflectApply,
  ReflectDefineProperty,
  ReflectDeleteProperty,
  ReflectGetPrototypeOf,
  ReflectOwnKeys,
  ReflectSetPrototypeOf,
  RegExpPrototypeExec,
  StringPrototypeSlice,
  SymbolPrototypeToString,
} from "./primordials.mjs";

const ANSWERS = 3;
const REQUESTS = 0;
const apply = ReflectApply;
const hasOwn = ObjectHasOwn;
const keys = ObjectKeys;
const PROTOTYPES = PROBED_PROTOTYPES;
/** Prototypes a fresh `{}` and `[]` inherit from: their enumerable keys are the fresh-object probe. */
const FRESH = [
  ["Object", Object.prototype],
  ["Array", Array.prototype],
];
const NONCE_LIMIT = 128;

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

// ---- prototype pollution probe (captured built-ins only; see the header) ----

function keyLabel(name, key) {
  return typeof key === "symbol"
    ? `${name}.prototype[${SymbolPrototypeToString(key)}]`
    : `${name}.prototype.${key}`;
}

/** The own keys and (null-prototype) descriptors of every probed prototype, now. */
function snapshot() {
  const snap = [];
  for (let i = 0; i < PROTOTYPES.length; i++) {
    const name = PROTOTYPES[i][0];
    const proto = PROTOTYPES[i][1];
    const descriptors = new MapConstructor();
    const own = ReflectOwnKeys(proto);
    for (let j = 0; j < own.length; j++) {
      const d = ObjectGetOwnPropertyDescriptor(proto, own[j]);
      ReflectSetPrototypeOf(d, null);
      MapPrototypeSet(descriptors, own[j], d);
    }
    append(snap, {
      __proto__: null,
      name,
      proto,
      own,
      descriptors,
      parent: ReflectGetPrototypeOf(proto),
    });
  }
  return snap;
}

function sameDescriptor(a, b) {
  return (
    ObjectIs(a.value, b.value) &&
    a.get === b.get &&
    a.set === b.set &&
    a.writable === b.writable &&
    a.enumerable === b.enumerable &&
    a.configurable === b.configurable
  );
}

/** The state every check compares with and restores: the prototypes once the module loaded. */
let clean = null;

/**
 * Records in `effects` every change to the probed prototypes since `clean` (as labels in
 * `pollution`), the fresh-object probe (enumerable keys a fresh `{}` or `[]` inherits, in
 * `inherited`) and the own-key count of each prototype (`shape`), then restores `clean`.
 */
function check(effects) {
  for (let i = 0; i < FRESH.length; i++) {
    const name = FRESH[i][0];
    const own = ReflectOwnKeys(FRESH[i][1]);
    for (let j = 0; j < own.length; j++) {
      if (typeof own[j] !== "string") continue;
      const d = ObjectGetOwnPropertyDescriptor(FRESH[i][1], own[j]);
      if (d !== undefined && d.enumerable) append(effects.inherited, keyLabel(name, own[j]));
    }
  }
  for (let i = 0; i < PROTOTYPES.length; i++) {
    const name = PROTOTYPES[i][0];
    const count = ReflectOwnKeys(PROTOTYPES[i][1]).length;
    const expected = clean === null ? count : clean[i].own.length;
    if (effects.shape[name] === undefined || count !== expected) effects.shape[name] = count;
  }
  if (clean === null) return;
  for (let i = 0; i < clean.length; i++) {
    const { name, proto, own, descriptors, parent } = clean[i];
    const now = ReflectOwnKeys(proto);
    for (let j = 0; j < now.length; j++) {
      if (MapPrototypeHas(descriptors, now[j])) continue;
      append(effects.pollution, keyLabel(name, now[j]));
      ReflectDeleteProperty(proto, now[j]);
    }
    for (let j = 0; j < own.length; j++) {
      const d = MapPrototypeGet(descriptors, own[j]);
      const current = ObjectGetOwnPropertyDescriptor(proto, own[j]);
      if (current !== undefined && sameDescriptor(current, d)) continue;
      append(effects.pollution, keyLabel(name, own[j]));
      ReflectDefineProperty(proto, own[j], d);
    }
    if (ReflectGetPrototypeOf(proto) !== parent) {
      append(effects.pollution, `${name}.prototype.__proto__`);
      ReflectSetPrototypeOf(proto, parent);
    }
  }
}

function newEffects() {
  const shape = { __proto__: null };
  return { pollution: [], inherited: [], shape };
}

// ---- module ----

let namespace = null;
let loadError = null;

function describe(value, nested) {
  if (typeof value === "function")
    return {
      kind: RegExpPrototypeExec(/^class\b/, FunctionPrototypeToString(value))
        ? "class"
        : "function",
    };
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

/**
 * Sends the answer to request `id` (echoing its nonce): encodes the reply, checks the prototypes
 * again (encoding may have run a getter of the submission), then writes. Nothing of the
 * submission runs between that check and the write.
 */
function answer(t, id, nonce, objects, value, async = false, effects = newEffects()) {
  let reply;
  let kind = t;
  try {
    reply = encodeReply(objects, value);
  } catch (e) {
    const error = new TypeError(
      `bouts: the ${t === "return" ? "result" : "exception"} cannot be sent: ${describeError(e)}`,
    );
    kind = "throw";
    reply = encodeReply([], error);
  }
  check(effects);
  send({ t: kind, id, n: nonce, async, effects, reply });
}

function describeError(e) {
  const message = ownValue(e, "message");
  return typeof message === "string" ? StringPrototypeSlice(message, 0, 300) : "unknown error";
}

/** The request's nonce when it is a short string, else null (echoed as is). */
function nonceOf(frame) {
  const n = ownValue(frame, "n");
  return typeof n === "string" && n.length <= NONCE_LIMIT ? n : null;
}

async function call(frame) {
  const id = ownValue(frame, "id");
  const nonce = nonceOf(frame);
  const effects = newEffects();
  // Changes made since the last answer (a timer, a late promise) belong to this call.
  check(effects);
  let objects;
  let fn;
  let self;
  let roots;
  try {
    ({ fn, self } = resolve(ownValue(frame, "name")));
    ({ roots, objects } = decodeGraph(ownValue(frame, "args")));
  } catch (e) {
    answer("throw", id, nonce, [], e, false, effects);
    return;
  }
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
  check(effects);
  answer(ok ? "return" : "throw", id, nonce, objects, value, async, effects);
}

const servers = new Map();

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

async function httpOpen(frame) {
  const id = ownValue(frame, "id");
  const nonce = nonceOf(frame);
  const factory = ownValue(frame, "factory");
  const socket = ownValue(frame, "socket");
  try {
    if (typeof socket !== "string") throw new TypeError("bouts: http-open has no socket path");
    const { fn, self } = resolve(factory);
    const given = ownValue(frame, "args");
    const args = given === undefined ? [] : decodeGraph(given).roots;
    let made = apply(fn, self, args);
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
    send({ t: "http-ready", id, n: nonce });
  } catch (e) {
    answer("throw", id, nonce, [], e);
  }
}

async function httpClose(frame) {
  const id = ownValue(frame, "id");
  const nonce = nonceOf(frame);
  const socket = ownValue(frame, "socket");
  const server = servers.get(socket);
  servers.delete(socket);
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
  send({ t: "http-closed", id, n: nonce });
}

async function handle(line) {
  let frame;
  try {
    frame = JSONParse(line);
  } catch {
    answer("throw", null, null, [], new TypeError("bouts: a request is not JSON"));
    return;
  }
  if (frame === null || typeof frame !== "object") {
    answer("throw", null, null, [], new TypeError("bouts: a request is not an object"));
    return;
  }
  const t = ownValue(frame, "t");
  switch (t) {
    case "call":
      return call(frame);
    case "http-open":
      return httpOpen(frame);
    case "http-close":
      return httpClose(frame);
  }
  answer(
    "throw",
    ownValue(frame, "id") ?? null,
    nonceOf(frame),
    [],
    new TypeError(
      `bouts: unknown request ${typeof t === "string" ? StringPrototypeSlice(t, 0, 40) : typeof t}`,
    ),
  );
}

/**
 * The next chunk of fd 0, read with the captured `fs.read` (not process.stdin, whose stream a
 * submission could tap): a Buffer, or null at end of input.
 */
function readChunk(buf) {
  return new PromiseConstructor((resolve, reject) => {
    const attempt = () =>
      fsRead(REQUESTS, buf, 0, buf.length, null, (error, n) => {
        if (!error) return resolve(n === 0 ? null : BufferPrototypeSubarray(buf, 0, n));
        const code = ownValue(error, "code");
        if (code === "EAGAIN" || code === "EWOULDBLOCK") return setTimeout(attempt, 2);
        reject(error);
      });
    attempt();
  });
}

async function serve() {
  let pending = BufferAllocUnsafe(0);
  for (;;) {
    const chunk = await readChunk(BufferAllocUnsafe(1 << 16));
    if (chunk === null) return;
    pending = BufferConcat([pending, chunk]);
    let start = 0;
    for (
      let nl = BufferPrototypeIndexOf(pending, 10);
      nl >= 0;
      nl = BufferPrototypeIndexOf(pending, 10, start)
    ) {
      const line = BufferPrototypeToString(pending, "utf8", start, nl);
      start = nl + 1;
      if (RegExpPrototypeExec(/^\s*$/, line) !== null) continue;
      // Run each request in a fresh macrotask: inside the read callback's continuation V8 has
      // far less stack left, and a recursive solution that works in a plain process
      // (deep-merge's 5000-level input) would overflow here.
      await new PromiseConstructor((resolve) => setImmediate(resolve));
      await handle(line);
    }
    pending = BufferPrototypeSubarray(pending, start);
  }
}

const modulePath = process.argv[2];
// Requests are read on libuv's thread pool, whose threads start on its first use. Start them now,
// before any submission code: a module that forks up to its process cap at import would
// otherwise leave the pool unable to start, and the subject would abort on its first read.
await new PromiseConstructor((resolve) => fsStat("/", () => resolve(undefined)));
try {
  if (typeof modulePath !== "string" || !modulePath.startsWith("/"))
    throw new TypeError("bouts: the subject needs an absolute module path");
  namespace = await import(pathToFileURL(modulePath).href);
  const exports = {};
  for (const name of keys(namespace)) exports[name] = describe(read(namespace, name), false);
  // What the module set up while loading is its environment: calls are compared with this.
  clean = snapshot();
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
