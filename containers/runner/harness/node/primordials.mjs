// Built-ins the harness relies on, captured when this module is first evaluated: in the subject
// it is the first module preload.mjs imports, so every value here is taken before any submission
// code exists. Invariants: the harness's answer path (probe, frame serialization, the write on
// the answer fd, reading requests) calls only what this module exports, never a global, a
// prototype method looked up at call time or an ESM binding of a built-in module (those follow
// `module.syncBuiltinESMExports()`); functions are called through the captured Reflect.apply
// (uncurried), never through `.call`; internal lists are null-prototype objects or arrays grown
// with defineProperty, so a setter planted on Array.prototype or Object.prototype never runs;
// exports are bindings of functions and frozen values only, so a submission that imports this
// module can read them but change none of them.
import { Buffer } from "node:buffer";
import fs from "node:fs";
import { types } from "node:util";

const apply = Reflect.apply;
const uncurry =
  (fn) =>
  (self, ...args) =>
    apply(fn, self, args);

/** Reflect.apply, captured. */
export const ReflectApply = apply;
export const ReflectOwnKeys = Reflect.ownKeys;
export const ReflectDefineProperty = Reflect.defineProperty;
export const ReflectDeleteProperty = Reflect.deleteProperty;
export const ReflectGetPrototypeOf = Reflect.getPrototypeOf;
export const ReflectSetPrototypeOf = Reflect.setPrototypeOf;
export const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
export const ObjectKeys = Object.keys;
export const ObjectIs = Object.is;
export const ObjectHasOwn = Object.hasOwn;
export const ObjectFreeze = Object.freeze;
export const ArrayIsArray = Array.isArray;
export const NumberIsFinite = Number.isFinite;
export const JSONStringify = JSON.stringify;
export const JSONParse = JSON.parse;
export const MapPrototypeGet = uncurry(Map.prototype.get);
export const MapPrototypeSet = uncurry(Map.prototype.set);
export const MapPrototypeHas = uncurry(Map.prototype.has);
export const StringPrototypeIndexOf = uncurry(String.prototype.indexOf);
export const StringPrototypeSlice = uncurry(String.prototype.slice);
export const SymbolPrototypeToString = uncurry(Symbol.prototype.toString);
export const FunctionPrototypeToString = uncurry(Function.prototype.toString);
export const RegExpPrototypeExec = uncurry(RegExp.prototype.exec);
export const BufferFrom = Buffer.from;
export const BufferAllocUnsafe = Buffer.allocUnsafe;
export const BufferPrototypeToString = uncurry(Buffer.prototype.toString);
export const BufferPrototypeIndexOf = uncurry(Buffer.prototype.indexOf);
export const BufferPrototypeSubarray = uncurry(Buffer.prototype.subarray);
export const BufferConcat = Buffer.concat;
export const isProxy = types.isProxy;
/** fs.writeSync as it was before any submission code: later replacements do not reach it. */
export const fsWriteSync = fs.writeSync;
/** fs.read (callback form) as it was before any submission code. */
export const fsRead = fs.read;
export const fsReadSync = fs.readSync;
/** fs.stat (callback form), for starting the thread pool before any submission code. */
export const fsStat = fs.stat;
export const MapConstructor = Map;
export const PromiseConstructor = Promise;
const AtomicsWait = Atomics.wait;
const Int32ArrayConstructor = Int32Array;
const SharedArrayBufferConstructor = SharedArrayBuffer;
const TypeErrorConstructor = TypeError;

/** Blocks the thread for `ms` milliseconds. */
export function sleepSync(ms) {
  AtomicsWait(new Int32ArrayConstructor(new SharedArrayBufferConstructor(4)), 0, 0, ms);
}

/** Appends `value` to array `list` without running any setter a submission planted. */
export function append(list, value) {
  ReflectDefineProperty(list, list.length, {
    __proto__: null,
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  return list;
}

/** An own data property's value, or undefined (never a getter, never the prototype chain). */
export function ownValue(obj, key) {
  if (obj === null || (typeof obj !== "object" && typeof obj !== "function")) return undefined;
  if (isProxy(obj)) return undefined;
  const d = ObjectGetOwnPropertyDescriptor(obj, key);
  return d !== undefined && ObjectHasOwn(d, "value") ? d.value : undefined;
}

const TEXT = 0;
const VALUE = 1;

/**
 * JSON text of a harness-built frame, computed without running any code but this function's and
 * captured built-ins: no `toJSON`, no getter (an accessor property is left out), no proxy trap (a
 * proxy is written as null), no iterator, no global `JSON`. Work list only, no recursion; throws a
 * TypeError once the text is over `maxChars` (which also ends a cycle).
 */
export function stringifyFrame(frame, maxChars) {
  let out = "";
  const stack = { __proto__: null };
  let sp = 0;
  stack[sp++] = VALUE;
  stack[sp++] = frame;
  while (sp > 0) {
    const item = stack[--sp];
    const kind = stack[--sp];
    if (out.length > maxChars)
      throw new TypeErrorConstructor(`bouts: a frame is over the ${maxChars}-byte limit`);
    if (kind === TEXT) {
      out += item;
      continue;
    }
    switch (typeof item) {
      case "string":
        out += JSONStringify(item);
        continue;
      case "number":
        out += NumberIsFinite(item) ? JSONStringify(item) : "null";
        continue;
      case "boolean":
        out += item ? "true" : "false";
        continue;
      case "object":
        break;
      default:
        out += "null"; // undefined, functions and symbols never appear in a well-formed frame
        continue;
    }
    if (item === null || isProxy(item)) {
      out += "null";
      continue;
    }
    if (ArrayIsArray(item)) {
      const n = item.length;
      stack[sp++] = TEXT;
      stack[sp++] = "]";
      for (let i = n - 1; i >= 0; i--) {
        const d = ObjectGetOwnPropertyDescriptor(item, i);
        stack[sp++] = VALUE;
        stack[sp++] = d !== undefined && ObjectHasOwn(d, "value") ? d.value : null;
        if (i > 0) {
          stack[sp++] = TEXT;
          stack[sp++] = ",";
        }
      }
      stack[sp++] = TEXT;
      stack[sp++] = "[";
      continue;
    }
    const keys = ObjectKeys(item);
    const kept = { __proto__: null };
    let count = 0;
    for (let i = 0; i < keys.length; i++) {
      const d = ObjectGetOwnPropertyDescriptor(item, keys[i]);
      if (d === undefined || !ObjectHasOwn(d, "value")) continue;
      const t = typeof d.value;
      if (t === "undefined" || t === "function" || t === "symbol") continue;
      kept[count++] = keys[i];
      kept[count++] = d.value;
    }
    stack[sp++] = TEXT;
    stack[sp++] = "}";
    for (let j = count - 2; j >= 0; j -= 2) {
      stack[sp++] = VALUE;
      stack[sp++] = kept[j + 1];
      stack[sp++] = TEXT;
      stack[sp++] = (j > 0 ? "," : "") + JSONStringify(kept[j]) + ":";
    }
    stack[sp++] = TEXT;
    stack[sp++] = "{";
  }
  return out;
}

/**
 * Writes `bytes` (a Buffer) on `fd` whole, with the captured fs.writeSync (retrying partial writes
 * and EAGAIN).
 */
export function writeLineSync(fd, bytes) {
  for (let off = 0; off < bytes.length;) {
    try {
      off += fsWriteSync(fd, bytes, off);
    } catch (e) {
      if (ownValue(e, "code") !== "EAGAIN") throw e;
      sleepSync(1);
    }
  }
}

/**
 * The built-in prototypes the pollution probe watches, by name, as they were when the harness
 * loaded: the subject snapshots them, and the trusted bridge compares their key counts with its
 * own pristine copies of the same list.
 */
export const PROBED_PROTOTYPES = [
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
