// Value codec of the subject protocol (docs/subject-protocol.md, "Values: Graph"), shared by the
// subject and the trusted bridge. Invariants: nothing recurses (work lists only), every object is
// one node so sharing and cycles survive, decoding never assigns (defineProperty only), and
// decoding trusts no field of the graph: anything malformed or over the limits is a TypeError.
import { Buffer } from "node:buffer";
import { types } from "node:util";
import { BufferFrom, JSONStringify, stringifyFrame, writeLineSync } from "./primordials.mjs";

/** Longest frame (one JSON line, in bytes) either side may write or accept. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** Most nodes in one graph (a reply's `inputs` and `nodes` count together). */
export const MAX_NODES = 1_000_000;
/** Most items or entries in one node. */
export const MAX_ITEMS = 1_000_000;

// Captured at load: the subject loads this module before the submission can patch built-ins.
const { keys, getPrototypeOf, defineProperty, getOwnPropertyDescriptor, hasOwn } = Object;
const ObjectPrototype = Object.prototype;
const isArray = Array.isArray;
const dateGetTime = Date.prototype.getTime;
const regexpSource = getOwnPropertyDescriptor(RegExp.prototype, "source").get;
const regexpFlags = getOwnPropertyDescriptor(RegExp.prototype, "flags").get;
const mapForEach = Map.prototype.forEach;
const mapSize = getOwnPropertyDescriptor(Map.prototype, "size").get;
const setForEach = Set.prototype.forEach;
const setSize = getOwnPropertyDescriptor(Set.prototype, "size").get;
const typedArrayTag = getOwnPropertyDescriptor(
  getPrototypeOf(Uint8Array.prototype),
  Symbol.toStringTag,
).get;

const STANDARD_ERRORS = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
  AggregateError,
};
const BYTE_TYPES = {
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
};
const UNDEFINED = Object.freeze({ $undef: 1 });
const ROOT = -1; // parent id of a root; input i of a reply has parent id -2 - i

function read(obj, key) {
  try {
    return obj[key];
  } catch {
    return undefined; // a throwing getter crosses as undefined
  }
}

function functionName(fn) {
  const name = read(fn, "name");
  return typeof name === "string" ? name : "";
}

/** The class name of a prototype object, or null when it is not some constructor's prototype. */
function className(proto) {
  const d = getOwnPropertyDescriptor(proto, "constructor");
  if (!d || typeof d.value !== "function" || read(d.value, "prototype") !== proto) return null;
  return functionName(d.value) || "anonymous";
}

class Encoder {
  constructor({ inputs = null, refuseFunctions = false, label, objects = null } = {}) {
    this.inputs = inputs;
    this.refuseFunctions = refuseFunctions;
    this.label = label ?? ((i) => `value ${i + 1}`);
    this.objects = objects;
    this.nodes = [];
    this.ids = new Map();
    this.work = [];
    // Where each node was first met, for error paths: parent node id and key.
    this.parents = [];
    this.keys = [];
  }

  path(parent, key) {
    const parts = [];
    for (;;) {
      if (parent === ROOT) {
        parts.push(this.label(key));
        break;
      }
      parts.push(typeof key === "number" ? `[${key}]` : `.${key}`);
      if (parent < ROOT) {
        parts.push(`argument object ${-2 - parent}`);
        break;
      }
      key = this.keys[parent];
      parent = this.parents[parent];
    }
    return parts.reverse().join("");
  }

  value(v, parent, key) {
    switch (typeof v) {
      case "undefined":
        return UNDEFINED;
      case "boolean":
      case "string":
        return v;
      case "number":
        if (Number.isFinite(v) && !Object.is(v, -0)) return v;
        return { $num: Object.is(v, -0) ? "-0" : String(v) };
      case "bigint":
        return { $bigint: v.toString() };
      case "symbol":
        throw new TypeError(`bouts: ${this.path(parent, key)} is a symbol, which cannot cross`);
      case "function":
        if (this.refuseFunctions)
          throw new TypeError(
            `bouts: ${this.path(parent, key)} is a function: functions cannot be sent to the subject`,
          );
        break;
    }
    if (v === null) return null;
    const input = this.inputs?.get(v);
    if (input !== undefined) return { $in: input };
    let n = this.ids.get(v);
    if (n === undefined) {
      n = this.nodes.length;
      if (n >= MAX_NODES) throw new TypeError(`bouts: more than ${MAX_NODES} objects`);
      this.ids.set(v, n);
      this.nodes.push(null);
      this.objects?.push(v);
      this.parents.push(parent);
      this.keys.push(key);
      this.work.push(v, n);
    }
    return { $ref: n };
  }

  drain() {
    while (this.work.length > 0) {
      const n = this.work.pop();
      const v = this.work.pop();
      this.nodes[n] = this.node(v, n);
    }
  }

  /** The node for object `v`; `id` is its node id (or -2 - i for input i) for error paths. */
  node(v, id) {
    if (typeof v === "function") return { k: "function", name: functionName(v) };
    if (isArray(v)) {
      const length = v.length;
      checkCount(length);
      const items = new Array(length);
      for (let i = 0; i < length; i++)
        items[i] = this.value(hasOwn(v, i) ? read(v, i) : undefined, id, i);
      return { k: "array", items };
    }
    if (types.isDate(v)) {
      const ms = dateGetTime.call(v);
      return { k: "date", ms: Number.isNaN(ms) ? null : ms };
    }
    if (types.isMap(v)) {
      checkCount(mapSize.call(v));
      const entries = [];
      mapForEach.call(v, (val, key) => {
        entries.push([this.value(key, id, "<map key>"), this.value(val, id, "<map value>")]);
      });
      return { k: "map", entries };
    }
    if (types.isSet(v)) {
      checkCount(setSize.call(v));
      const items = [];
      setForEach.call(v, (item) => items.push(this.value(item, id, "<set item>")));
      return { k: "set", items };
    }
    if (types.isRegExp(v))
      return { k: "regexp", source: regexpSource.call(v), flags: regexpFlags.call(v) };
    if (types.isAnyArrayBuffer(v))
      return { k: "bytes", type: "ArrayBuffer", b64: base64(Buffer.from(v)) };
    if (types.isArrayBufferView(v)) {
      const type = Buffer.isBuffer(v)
        ? "Buffer"
        : types.isDataView(v)
          ? "DataView"
          : typedArrayTag.call(v);
      return { k: "bytes", type, b64: base64(Buffer.from(v.buffer, v.byteOffset, v.byteLength)) };
    }
    if (types.isNativeError(v) || v instanceof Error) return this.error(v, id);
    const entries = [];
    const own = keys(v);
    checkCount(own.length);
    for (const key of own) entries.push([key, this.value(read(v, key), id, key)]);
    return { k: "object", proto: this.proto(v, id), entries };
  }

  proto(v, id) {
    const proto = getPrototypeOf(v);
    if (proto === null) return "null";
    if (proto === ObjectPrototype) return "object";
    const name = className(proto);
    return name === null ? this.value(proto, id, "<prototype>") : { class: name };
  }

  error(v, id) {
    const chain = [];
    for (let p = getPrototypeOf(v); p !== null && p !== ObjectPrototype && chain.length < 64;) {
      const name = className(p);
      if (name !== null) chain.push(name);
      p = getPrototypeOf(p);
    }
    const name = read(v, "name");
    const message = read(v, "message");
    const stack = read(v, "stack");
    const code = read(v, "code");
    const node = {
      k: "error",
      name: typeof name === "string" ? name : (chain[0] ?? "Error"),
      chain,
      message:
        typeof message === "string" ? message : message === undefined ? "" : safeString(message),
    };
    if (typeof stack === "string") node.stack = stack.slice(0, 4000);
    if (hasOwn(v, "cause")) node.cause = this.value(read(v, "cause"), id, "cause");
    if (typeof code === "string") node.code = code;
    return node;
  }
}

function safeString(v) {
  try {
    return String(v);
  } catch {
    return "";
  }
}

function base64(buf) {
  if (buf.length > MAX_FRAME_BYTES)
    throw new TypeError("bouts: a binary value is over the frame limit");
  return buf.toString("base64");
}

function checkCount(n) {
  if (n > MAX_ITEMS) throw new TypeError(`bouts: more than ${MAX_ITEMS} items in one object`);
}

/**
 * Encodes `roots` as a Graph. Options: `inputs` (Map object → request node index: those objects
 * become `$in`), `refuseFunctions` with `label(rootIndex)` (a function anywhere is a TypeError
 * naming its path, e.g. "argument 2.onChange"), `objects` (an array that receives the object
 * behind each node, in node order).
 * @returns {{roots: unknown[], nodes: object[]}}
 */
export function encodeGraph(roots, options = {}) {
  const enc = new Encoder(options);
  const values = [];
  for (let i = 0; i < roots.length; i++) values.push(enc.value(roots[i], ROOT, i));
  enc.drain();
  return { roots: values, nodes: enc.nodes };
}

/**
 * The subject's Reply: the post-call state of every request object (`requestObjects[i]` is the
 * object decoded from request node i) and the result, reusing request objects as `$in`.
 * @returns {{inputs: object[], nodes: object[], roots: unknown[]}}
 */
export function encodeReply(requestObjects, result) {
  const inputs = new Map();
  requestObjects.forEach((o, i) => {
    if (!inputs.has(o)) inputs.set(o, i);
  });
  const enc = new Encoder({ inputs, label: () => "the result" });
  const states = requestObjects.map((o, i) => enc.node(o, -2 - i));
  if (states.length + enc.nodes.length > MAX_NODES)
    throw new TypeError(`bouts: more than ${MAX_NODES} objects`);
  const roots = [enc.value(result, ROOT, 0)];
  enc.drain();
  if (states.length + enc.nodes.length > MAX_NODES)
    throw new TypeError(`bouts: more than ${MAX_NODES} objects`);
  return { inputs: states, nodes: enc.nodes, roots };
}

/** A Graph holding one error (the `load-error` frame's `error`). */
export function encodeError(error) {
  return encodeGraph([error]);
}

/** The value of a Graph made by `encodeError`. */
export function decodeError(graph) {
  return decodeGraph(graph).roots[0];
}

// ---- decoding ----

function malformed(what) {
  return new TypeError(`bouts: malformed graph (${what})`);
}

function isRecord(v) {
  return v !== null && typeof v === "object" && !isArray(v);
}

function list(v, limit, what) {
  if (!isArray(v)) throw malformed(`${what} is not a list`);
  if (v.length > limit) throw new TypeError(`bouts: more than ${limit} ${what}`);
  return v;
}

function text(v, what) {
  if (typeof v !== "string") throw malformed(`${what} is not a string`);
  return v;
}

// Synthesized classes are shared across calls so that two decoded instances of one class have one
// prototype (deepStrictEqual compares prototypes); the caches are bounded against a hostile subject.
const CACHE_LIMIT = 10_000;
const classPrototypes = new Map();
const errorClasses = new Map();

function cached(cache, key, make) {
  let v = cache.get(key);
  if (v === undefined) {
    v = make();
    if (cache.size < CACHE_LIMIT) cache.set(key, v);
  }
  return v;
}

function classPrototype(name) {
  return cached(classPrototypes, name, () => {
    const C = function () {};
    defineProperty(C, "name", { value: name, configurable: true });
    return C.prototype;
  });
}

function errorClass(chain) {
  let Base = Error;
  for (const name of chain) {
    if (typeof name === "string" && hasOwn(STANDARD_ERRORS, name)) {
      Base = STANDARD_ERRORS[name];
      break;
    }
  }
  const own = typeof chain[0] === "string" && chain[0] !== "" ? chain[0] : Base.name;
  if (own === Base.name) return Base;
  return cached(errorClasses, `${Base.name}:${own}`, () => {
    const Sub = class extends Base {};
    defineProperty(Sub, "name", { value: own, configurable: true });
    defineProperty(Sub.prototype, "name", { value: own, writable: true, configurable: true });
    return Sub;
  });
}

function hidden(obj, key, value) {
  defineProperty(obj, key, { value, writable: true, enumerable: false, configurable: true });
}

function makeError(node) {
  const C = errorClass(list(node.chain, 64, "error chain entries"));
  const error = C === AggregateError || C.prototype instanceof AggregateError ? new C([]) : new C();
  const message = text(node.message, "error message");
  if (message !== "") hidden(error, "message", message);
  const name = text(node.name, "error name");
  if (name !== error.name) hidden(error, "name", name);
  if (typeof node.stack === "string") hidden(error, "stack", node.stack);
  if (typeof node.code === "string")
    defineProperty(error, "code", {
      value: node.code,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  return error;
}

function opaqueFunction(name) {
  const f = function () {
    throw new TypeError("bouts: a function returned by the subject cannot be called from the test");
  };
  defineProperty(f, "name", { value: name, configurable: true });
  return f;
}

function makeBytes(node) {
  const type = text(node.type, "bytes type");
  const raw = Buffer.from(text(node.b64, "bytes b64"), "base64");
  if (type === "Buffer") return raw;
  const buffer = new ArrayBuffer(raw.length);
  new Uint8Array(buffer).set(raw);
  if (type === "ArrayBuffer" || type === "SharedArrayBuffer") return buffer;
  if (type === "DataView") return new DataView(buffer);
  const T = hasOwn(BYTE_TYPES, type) ? BYTE_TYPES[type] : Uint8Array;
  if (raw.length % T.BYTES_PER_ELEMENT !== 0) throw malformed(`${type} of ${raw.length} bytes`);
  return new T(buffer);
}

/** Decodes nodes into objects. `inputs` is the caller's objects for `$in` (replies only). */
class Decoder {
  constructor(nodes, inputs, limits) {
    this.maxItems = limits?.items ?? MAX_ITEMS;
    this.nodes = list(nodes, limits?.nodes ?? MAX_NODES, "nodes");
    this.inputs = inputs;
    this.objects = this.nodes.map((node) => this.shell(node));
    this.nodes.forEach((node, i) => this.fill(this.objects[i], node));
  }

  value(v) {
    switch (typeof v) {
      case "string":
      case "boolean":
      case "number":
        return v;
    }
    if (v === null) return null;
    if (!isRecord(v)) throw malformed("a value is neither inline nor a reference");
    if (hasOwn(v, "$ref")) return this.ref(v.$ref, this.objects);
    if (hasOwn(v, "$in")) {
      if (this.inputs === null) throw malformed("$in outside a reply");
      return this.ref(v.$in, this.inputs);
    }
    if (hasOwn(v, "$undef")) return undefined;
    if (hasOwn(v, "$num")) {
      switch (v.$num) {
        case "NaN":
          return NaN;
        case "Infinity":
          return Infinity;
        case "-Infinity":
          return -Infinity;
        case "-0":
          return -0;
      }
      throw malformed("unknown $num");
    }
    if (hasOwn(v, "$bigint")) {
      if (typeof v.$bigint !== "string" || !/^-?\d+$/.test(v.$bigint))
        throw malformed("bad $bigint");
      return BigInt(v.$bigint);
    }
    throw malformed("unknown value");
  }

  ref(n, objects) {
    if (!Number.isInteger(n) || n < 0 || n >= objects.length)
      throw malformed(`reference ${n} out of range`);
    return objects[n];
  }

  items(node) {
    return list(node.items, this.maxItems, "items");
  }

  entries(node) {
    const entries = list(node.entries, this.maxItems, "entries");
    for (const e of entries)
      if (!isArray(e) || e.length !== 2) throw malformed("an entry is not a pair");
    return entries;
  }

  shell(node) {
    if (!isRecord(node)) throw malformed("a node is not an object");
    switch (node.k) {
      case "object": {
        const { proto } = node;
        if (proto === "null") return Object.create(null);
        if (isRecord(proto) && hasOwn(proto, "class"))
          return Object.create(classPrototype(text(proto.class, "class name")));
        return {};
      }
      case "array":
        return new Array(this.items(node).length);
      case "map":
        return new Map();
      case "set":
        return new Set();
      case "date":
        if (node.ms !== null && typeof node.ms !== "number") throw malformed("date ms");
        return new Date(node.ms ?? NaN);
      case "regexp":
        try {
          return new RegExp(text(node.source, "regexp source"), text(node.flags, "regexp flags"));
        } catch (e) {
          if (e instanceof SyntaxError) throw malformed("invalid regexp");
          throw e;
        }
      case "bytes":
        return makeBytes(node);
      case "error":
        return makeError(node);
      case "function":
        return opaqueFunction(typeof node.name === "string" ? node.name : "");
    }
    throw malformed(`unknown node kind ${JSON.stringify(node.k)}`);
  }

  fill(obj, node) {
    switch (node.k) {
      case "object": {
        this.setProto(obj, node.proto);
        for (const [key, v] of this.entries(node)) {
          defineProperty(obj, text(key, "object key"), {
            value: this.value(v),
            writable: true,
            enumerable: true,
            configurable: true,
          });
        }
        return;
      }
      case "array": {
        const items = node.items;
        for (let i = 0; i < items.length; i++) obj[i] = this.value(items[i]);
        return;
      }
      case "map":
        for (const [k, v] of this.entries(node)) obj.set(this.value(k), this.value(v));
        return;
      case "set":
        for (const v of this.items(node)) obj.add(this.value(v));
        return;
      case "error":
        if (hasOwn(node, "cause")) hidden(obj, "cause", this.value(node.cause));
        return;
    }
  }

  /** The prototype a node's `proto` field names. */
  proto(proto, current) {
    if (proto === "object") return ObjectPrototype;
    if (proto === "null") return null;
    if (isRecord(proto) && hasOwn(proto, "class")) {
      const name = text(proto.class, "class name");
      // The caller's own instance keeps its real class (same name): only data crossed.
      return current !== null && current !== undefined && className(current) === name
        ? current
        : classPrototype(name);
    }
    const p = this.value(proto);
    if (p === null || (typeof p !== "object" && typeof p !== "function"))
      throw malformed("prototype");
    return p;
  }

  setProto(obj, proto) {
    const current = getPrototypeOf(obj);
    const wanted = this.proto(proto, current);
    // A non-extensible caller object keeps its prototype, as it would have in a direct call.
    if (wanted !== current && !Reflect.setPrototypeOf(obj, wanted) && Object.isExtensible(obj))
      throw malformed("cyclic prototype");
  }

  /** Applies input node `node` (post-call state) onto the caller's own object `target`. */
  apply(target, node) {
    if (!isRecord(node)) throw malformed("an input is not a node");
    const mismatch = () =>
      malformed(`reply input of kind ${JSON.stringify(node.k)} does not match the request`);
    switch (node.k) {
      case "object": {
        if (target === null || typeof target !== "object" || isArray(target)) throw mismatch();
        this.setProto(target, node.proto);
        applyEntries(
          target,
          this.entries(node).map(([key, v]) => [text(key, "object key"), this.value(v)]),
        );
        return;
      }
      case "array": {
        if (!isArray(target)) throw mismatch();
        const items = this.items(node).map((v) => this.value(v));
        tryQuietly(() => {
          target.length = items.length;
        });
        for (let i = 0; i < items.length; i++) {
          if (!Object.is(target[i], items[i]) || !hasOwn(target, i))
            tryQuietly(() => {
              target[i] = items[i];
            });
        }
        return;
      }
      case "map": {
        if (!types.isMap(target)) throw mismatch();
        const entries = this.entries(node).map(([k, v]) => [this.value(k), this.value(v)]);
        target.clear();
        for (const [k, v] of entries) target.set(k, v);
        return;
      }
      case "set": {
        if (!types.isSet(target)) throw mismatch();
        const items = this.items(node).map((v) => this.value(v));
        target.clear();
        for (const v of items) target.add(v);
        return;
      }
      case "date":
        if (!types.isDate(target)) throw mismatch();
        if (node.ms !== null && typeof node.ms !== "number") throw malformed("date ms");
        target.setTime(node.ms ?? NaN);
        return;
      case "bytes": {
        const raw = Buffer.from(text(node.b64, "bytes b64"), "base64");
        const view = types.isAnyArrayBuffer(target)
          ? new Uint8Array(target)
          : types.isArrayBufferView(target)
            ? new Uint8Array(target.buffer, target.byteOffset, target.byteLength)
            : null;
        if (view === null) throw mismatch();
        if (view.length === raw.length) view.set(raw);
        return;
      }
      case "regexp":
      case "error":
      case "function":
        return; // nothing of these that crossed can be changed in place
    }
    throw malformed(`unknown node kind ${JSON.stringify(node.k)}`);
  }
}

function tryQuietly(f) {
  try {
    f();
  } catch {
    // a frozen or sealed caller object keeps its state, as it would have in a direct call
  }
}

/** Makes the own enumerable string keys of `target` exactly `entries`, in order. */
function applyEntries(target, entries) {
  const wanted = new Set(entries.map(([k]) => k));
  const kept = [];
  for (const key of keys(target)) {
    if (wanted.has(key)) kept.push(key);
    else tryQuietly(() => delete target[key]);
  }
  // Keys re-added by the subject move to the end; re-create all of them when the order differs.
  const inOrder = kept.every((key, i) => entries[i][0] === key);
  if (!inOrder) for (const key of kept) tryQuietly(() => delete target[key]);
  for (const [key, value] of entries) {
    const d = getOwnPropertyDescriptor(target, key);
    // An own accessor was read once when sent; the subject only ever saw its value.
    if (inOrder && d && (d.get || d.set || Object.is(d.value, value))) continue;
    tryQuietly(() =>
      defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true }),
    );
  }
}

/**
 * Decodes a Graph. `limits` ({nodes, items}) defaults to the protocol's.
 * @returns {{roots: unknown[], objects: unknown[]}} `objects[i]` is the object built for node i.
 */
export function decodeGraph(graph, { limits } = {}) {
  if (!isRecord(graph)) throw malformed("not an object");
  const d = new Decoder(graph.nodes, null, limits);
  return {
    roots: list(graph.roots, MAX_ITEMS, "roots").map((v) => d.value(v)),
    objects: d.objects,
  };
}

/**
 * Applies a Reply for a request whose node i was the caller's `callerObjects[i]`: every input state
 * is written onto the caller's own object in place, then the result (`roots[0]`) is built, reusing
 * caller objects for `$in`.
 */
export function applyReply(reply, callerObjects) {
  if (!isRecord(reply)) throw malformed("reply is not an object");
  const inputs = list(reply.inputs, callerObjects.length, "inputs");
  const d = new Decoder(reply.nodes, callerObjects, { nodes: MAX_NODES - inputs.length });
  inputs.forEach((node, i) => d.apply(callerObjects[i], node));
  const roots = list(reply.roots, MAX_ITEMS, "roots");
  if (roots.length < 1) throw malformed("reply has no root");
  return d.value(roots[0]);
}

/**
 * Writes one frame as one line on `fd`, whole (retrying partial writes and EAGAIN). A frame over
 * MAX_FRAME_BYTES is a TypeError and nothing is written. Serialization and the write use only
 * built-ins captured before any submission code loaded (primordials.mjs): replacing
 * `JSON.stringify`, `fs.writeSync` (even with `module.syncBuiltinESMExports()`) or planting a
 * `toJSON` on a prototype changes nothing this writes.
 */
export function writeFrameSync(fd, frame) {
  writeTextLineSync(fd, stringifyFrame(frame, MAX_FRAME_BYTES));
}

/** Writes `text` and a newline on `fd`, whole, or throws a TypeError over MAX_FRAME_BYTES. */
function writeTextLineSync(fd, text) {
  const line = BufferFrom(text + "\n", "utf8");
  if (line.length > MAX_FRAME_BYTES)
    throw new TypeError(
      `bouts: a frame of ${line.length} bytes is over the ${MAX_FRAME_BYTES}-byte limit`,
    );
  writeLineSync(fd, line);
}

/**
 * writeFrameSync for the trusted side only (the bridge, in a test process where no submission
 * code runs): every frame it writes is built by encodeGraph and the bridge from plain data, with
 * no `toJSON`, getter or proxy for stringifyFrame to guard against, so the built-in
 * JSON.stringify writes the same text (test/harness-node.test.ts holds the two equal) in a
 * tenth of the time on a large graph: 120 ms against 7 for a 100,000-key argument, paid on
 * every oversized call of a module challenge's generated tests. A frame over MAX_FRAME_BYTES is
 * a TypeError and nothing is written, as there.
 */
export function writeTrustedFrameSync(fd, frame) {
  let text;
  try {
    text = JSONStringify(frame);
  } catch (e) {
    // Longer than any string can be: over the limit by far.
    if (e instanceof RangeError)
      throw new TypeError(`bouts: a frame is over the ${MAX_FRAME_BYTES}-byte limit`, {
        cause: e,
      });
    throw e;
  }
  writeTextLineSync(fd, text);
}
