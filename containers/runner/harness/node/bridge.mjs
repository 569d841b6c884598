// Trusted side of the subject protocol: stand-ins for a submission module's exports. Every call is
// a synchronous round trip (request on fd 3, answer read blocking from fd 0), so a synchronous
// function stays synchronous in the test. No submission code runs here: only data comes back.
// Invariants: every request carries a fresh random nonce `n` and an answer without it is a
// protocol fault (a line the subject's code wrote itself on the answer fd cannot pass for the
// harness's answer without reading the harness's memory); pollution is judged here, from the
// raw probe facts of each answer (`inherited`, `shape`) compared with this process's own pristine
// prototypes, as well as from the subject's own list, and an answer without those facts is a
// protocol fault.
import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { readSync } from "node:fs";
import net from "node:net";
import process from "node:process";
import { setTimeout } from "node:timers";
import {
  applyReply,
  decodeGraph,
  encodeGraph,
  MAX_FRAME_BYTES,
  writeTrustedFrameSync,
} from "./codec.mjs";
import { PROBED_PROTOTYPES } from "./primordials.mjs";

const ANSWERS = 0;
const REQUESTS = 3;
// BOUTS_CHANNEL_DIR: the folder shared with the subject where HTTP sockets are made (the sandboxes
// mount it at /chan; tests outside a sandbox point it at a temporary folder).
const CHANNEL_DIR = process.env.BOUTS_CHANNEL_DIR || "/chan";

/**
 * Thrown when the subject could not answer (crashed, timed out, broke the protocol, unavailable).
 * Deliberately not an Error, so `assert.throws(f, Error)` cannot accept it.
 */
export class SubjectFault {
  constructor(fault, message) {
    this.name = "SubjectFault";
    this.fault = fault;
    this.message = message;
    this.stack = `SubjectFault (${fault}): ${message}\n${new Error().stack?.split("\n").slice(2).join("\n") ?? ""}`;
  }

  toString() {
    return `SubjectFault (${this.fault}): ${this.message}`;
  }
}

/** The prototypes the subject probes, with their own-key counts in this (trusted) process. */
const PRISTINE_SHAPE = new Map(
  PROBED_PROTOTYPES.map(([name, proto]) => [name, Reflect.ownKeys(proto).length]),
);
const LABEL_LIMIT = 200;
const LABELS_PER_ANSWER = 1000;

let lastId = 0;
let socketCount = 0;
let pending = Buffer.alloc(0); // bytes read past the last answer
const pollutionSeen = new Set();
const faultsSeen = [];

function fault(kind, message) {
  const f = new SubjectFault(kind, message);
  faultsSeen.push(f);
  return f;
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function readChunkSync() {
  const buf = Buffer.allocUnsafe(1 << 16);
  for (;;) {
    let n;
    try {
      n = readSync(ANSWERS, buf, 0, buf.length, null);
    } catch (e) {
      // fd 0 may have been made non-blocking by someone else in this process
      if (e?.code === "EAGAIN" || e?.code === "EWOULDBLOCK") {
        sleep(2);
        continue;
      }
      throw fault("unavailable", `bouts: the answer channel failed: ${e?.message}`);
    }
    if (n === 0) throw fault("unavailable", "bouts: the runner closed the answer channel");
    return buf.subarray(0, n);
  }
}

function readLineSync() {
  const parts = [];
  let size = 0;
  for (;;) {
    const nl = pending.indexOf(10);
    if (nl >= 0) {
      parts.push(pending.subarray(0, nl));
      pending = pending.subarray(nl + 1);
      return Buffer.concat(parts, size + nl).toString("utf8");
    }
    parts.push(pending);
    size += pending.length;
    if (size > MAX_FRAME_BYTES) throw fault("protocol", "bouts: an answer is over the frame limit");
    pending = readChunkSync();
  }
}

/**
 * Sends one request (adding its nonce) and blocks until its answer; a fault answer is thrown as a
 * SubjectFault, and so is an answer that does not echo the nonce.
 */
function roundTrip(request) {
  request.n = randomBytes(16).toString("hex");
  try {
    writeTrustedFrameSync(REQUESTS, request);
  } catch (e) {
    if (e instanceof TypeError) throw e; // over the frame limit: nothing was sent
    throw fault("unavailable", `bouts: the request channel failed: ${e?.message}`);
  }
  for (;;) {
    let answer;
    try {
      answer = JSON.parse(readLineSync());
    } catch (e) {
      if (e instanceof SubjectFault) throw e;
      throw fault("protocol", "bouts: an answer is not JSON");
    }
    if (answer === null || typeof answer !== "object" || answer.id !== request.id) continue;
    if (answer.t === "fault")
      throw fault(String(answer.fault), String(answer.message ?? "the subject did not answer"));
    if (answer.n !== request.n)
      throw fault(
        "protocol",
        "bouts: an answer without its request's nonce: the harness did not write it",
      );
    return answer;
  }
}

function labels(list, what) {
  if (!Array.isArray(list) || list.length > LABELS_PER_ANSWER)
    throw fault("protocol", `bouts: an answer's probe has no valid ${what} list`);
  for (const label of list) {
    if (typeof label !== "string")
      throw fault("protocol", `bouts: an answer's probe has a ${what} entry that is not text`);
  }
  return list.map((label) => label.slice(0, LABEL_LIMIT));
}

/**
 * Adds to the pollution seen what a call's answer shows: the subject's own list, every key a
 * fresh `{}` or `[]` inherited in the subject (none does in a pristine realm), and every probed
 * prototype whose own-key count differs from this process's. Missing or malformed facts are a
 * protocol fault: a probe that says nothing is not a clean probe.
 */
function judgeEffects(effects) {
  if (effects === null || typeof effects !== "object")
    throw fault("protocol", "bouts: an answer carries no probe facts");
  const listed = [
    ...labels(effects.pollution, "pollution"),
    ...labels(effects.inherited, "inherited"),
  ];
  for (const label of listed) pollutionSeen.add(label);
  const shape = effects.shape;
  if (shape === null || typeof shape !== "object")
    throw fault("protocol", "bouts: an answer's probe has no prototype shape");
  for (const [name, count] of PRISTINE_SHAPE) {
    const seen = Object.hasOwn(shape, name) ? shape[name] : undefined;
    if (!Number.isSafeInteger(seen))
      throw fault("protocol", `bouts: an answer's probe has no key count for ${name}.prototype`);
    // A changed key count with no key of that prototype named is evidence of its own.
    if (seen !== count && !listed.some((label) => label.startsWith(`${name}.prototype`)))
      pollutionSeen.add(`${name}.prototype (${seen} own keys; a pristine one has ${count})`);
  }
}

function named(f, name) {
  Object.defineProperty(f, "name", { value: name, configurable: true });
  return f;
}

function functionStandIn(name) {
  return named(function (...args) {
    const objects = [];
    const graph = encodeGraph(args, {
      refuseFunctions: true,
      label: (i) => `argument ${i + 1}`,
      objects,
    });
    const answer = roundTrip({ t: "call", id: ++lastId, name, args: graph });
    if (answer.t !== "return" && answer.t !== "throw")
      throw fault("protocol", `bouts: unexpected answer ${JSON.stringify(answer.t)} to a call`);
    judgeEffects(answer.effects);
    const value = applyReply(answer.reply, objects);
    if (answer.t === "return") return answer.async ? Promise.resolve(value) : value;
    if (answer.async) return Promise.reject(value);
    throw value;
  }, name);
}

function classStandIn(name) {
  return named(function () {
    throw new TypeError("bouts: classes cannot cross to the subject; call its functions");
  }, name);
}

/**
 * Stand-in for the server an HTTP factory made in the subject: listens on this sandbox's loopback
 * and pipes each connection to the subject's Unix socket.
 */
class StandInServer extends EventEmitter {
  #socket;
  #proxy = null;
  #connections = new Set();
  #closed = false;

  constructor(socket) {
    super();
    this.#socket = socket;
    this.server = this;
  }

  get listening() {
    return this.#proxy?.listening ?? false;
  }

  /** listen(port?, host?, backlog?, cb?) or listen(options?, cb?); always binds 127.0.0.1. */
  listen(...args) {
    const cb = typeof args.at(-1) === "function" ? args.pop() : null;
    const first = args[0];
    const port =
      Number((first !== null && typeof first === "object" ? first.port : first) ?? 0) || 0;
    if (cb) this.once("listening", cb);
    this.#proxy = net.createServer((down) => {
      const up = net.connect({ path: this.#socket });
      for (const s of [down, up]) {
        this.#connections.add(s);
        s.on("close", () => this.#connections.delete(s));
      }
      down.on("error", () => up.destroy());
      // A server that answers and closes before the request body is all sent (a refused huge
      // body) must look as it does over TCP: its answer reaches the client, and the rest of the
      // body is read and dropped instead of resetting the connection before the client read.
      let upDone = false;
      const afterUp = () => {
        if (upDone) return;
        upDone = true;
        down.unpipe(up);
        down.on("data", () => undefined);
        down.resume();
        down.end();
        setTimeout(() => down.destroy(), 2000).unref();
      };
      up.on("error", afterUp);
      up.on("close", afterUp);
      down.pipe(up);
      up.pipe(down, { end: false });
    });
    this.#proxy.on("error", (e) => this.emit("error", e));
    this.#proxy.listen(port, "127.0.0.1", () => this.emit("listening"));
    return this;
  }

  address() {
    return this.#proxy?.address() ?? null;
  }

  closeAllConnections() {
    for (const s of this.#connections) s.destroy();
  }

  /** Stops the proxy and closes the subject's server; `cb` runs once the proxy has closed. */
  close(cb) {
    if (cb) this.once("close", cb);
    this.closeAllConnections();
    if (!this.#closed) {
      this.#closed = true;
      roundTrip({ t: "http-close", id: ++lastId, socket: this.#socket });
    }
    const proxy = this.#proxy;
    if (proxy?.listening) proxy.close(() => this.emit("close"));
    else process.nextTick(() => this.emit("close"));
    return this;
  }

  ref() {
    this.#proxy?.ref();
    return this;
  }

  unref() {
    this.#proxy?.unref();
    return this;
  }
}

function factoryStandIn(name) {
  return named(function (...args) {
    const socket = `${CHANNEL_DIR}/http-${process.pid}-${++socketCount}.sock`;
    const answer = roundTrip({
      t: "http-open",
      id: ++lastId,
      factory: name,
      socket,
      args: encodeGraph(args, { refuseFunctions: true, label: (i) => `argument ${i + 1}` }),
    });
    if (answer.t === "throw") throw applyReply(answer.reply, []);
    if (answer.t !== "http-ready")
      throw fault("protocol", `bouts: unexpected answer ${JSON.stringify(answer.t)} to http-open`);
    return new StandInServer(socket);
  }, name);
}

function standIn(name, descriptor, factories, nested) {
  if (factories.includes(name)) return factoryStandIn(name);
  switch (descriptor?.kind) {
    case "function":
      return functionStandIn(name);
    case "class":
      return classStandIn(name);
    case "value":
      return decodeGraph(descriptor.value).roots[0];
    case "namespace":
      if (nested) break;
      return members(name, descriptor.members, factories, true);
  }
  throw new TypeError(`bouts: export ${name} has an unknown kind`);
}

function members(prefix, described, factories, nested) {
  const out = {};
  for (const [member, d] of Object.entries(described ?? {})) {
    Object.defineProperty(out, member, {
      value: standIn(nested ? `${prefix}.${member}` : member, d, factories, nested),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Stand-ins for every export of the subject's module, from its `ready` frame's `exports`:
 * functions become synchronous round trips, classes throw, values are decoded copies, namespaces
 * hold stand-ins named `export.member`. Names in `factories` are HTTP factories.
 * @param {string} moduleId the module the tests import (for messages)
 * @param {Record<string, object>} exportsDescriptor
 * @param {{factories?: string[]}} [options]
 * @returns {Record<string, unknown>}
 */
export function createModuleBridge(moduleId, exportsDescriptor, { factories = [] } = {}) {
  try {
    return members("", exportsDescriptor, factories, false);
  } catch (e) {
    throw new TypeError(`bouts: cannot bridge ${moduleId}: ${e?.message}`, { cause: e });
  }
}

/**
 * A fresh path in the folder shared with the subject (`/chan` in the sandboxes) for a file the
 * subject is to write and this process to read afterwards (a database a challenge fixes):
 * `<folder>/<prefix>-<pid>-<n><suffix>`. The prefix and suffix are the test's own.
 */
export function sharedPath(prefix = "file", suffix = "") {
  return `${CHANNEL_DIR}/${prefix}-${process.pid}-${++socketCount}${suffix}`;
}

/** Pollution the subject reported since the last call to this (or `resetPollution`); clears it. */
export function pollution() {
  const list = [...pollutionSeen];
  pollutionSeen.clear();
  return list;
}

/** Forgets reported pollution (at the start of each test). */
export function resetPollution() {
  pollutionSeen.clear();
}

/** Faults received since the last call, cleared: the harness fails the test even if it caught one. */
export function takeFaults() {
  return faultsSeen.splice(0);
}
