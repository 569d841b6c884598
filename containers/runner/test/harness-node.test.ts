/**
 * The Node halves of the subject protocol (docs/subject-protocol.md): the value codec directly,
 * then the subject server and the trusted bridge end to end in plain child processes, joined by a
 * small broker standing in for the host. Only fixture modules written here run; no sandbox needed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, onLines } from "./helpers.ts";
import {
  applyReply,
  decodeError,
  decodeGraph,
  encodeError,
  encodeGraph,
  encodeReply,
  type Graph,
  MAX_FRAME_BYTES,
  writeFrameSync,
  writeTrustedFrameSync,
} from "../harness/node/codec.mjs";

const HARNESS = path.resolve(import.meta.dirname, "../harness/node");

/** Through JSON, as on the wire. */
function wire<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function roundTrip<T>(v: T): T {
  return decodeGraph(wire(encodeGraph([v]))).roots[0] as T;
}

/** A call in one process: encode args, decode them "in the subject", run `f`, apply the reply. */
function simulateCall<A extends unknown[], R>(
  args: [...A],
  f: (...args: A) => R,
): { result: R; reply: unknown } {
  const objects: unknown[] = [];
  const request = wire(encodeGraph(args, { objects, refuseFunctions: true }));
  const subject = decodeGraph(request);
  const reply = wire(encodeReply(subject.objects, f(...(subject.roots as A))));
  return { result: applyReply(reply, objects) as R, reply };
}

describe("codec: values", () => {
  it("round-trips primitives, including NaN, ±Infinity, -0 and bigint", () => {
    const values = [undefined, null, true, false, "", "é\u{1F600}\ud800", 0, 1.5, -7];
    for (const v of values) expect(roundTrip(v)).toBe(v);
    expect(roundTrip(NaN)).toBeNaN();
    expect(roundTrip(Infinity)).toBe(Infinity);
    expect(roundTrip(-Infinity)).toBe(-Infinity);
    expect(Object.is(roundTrip(-0), -0)).toBe(true);
    expect(roundTrip(-(2n ** 70n))).toBe(-(2n ** 70n));
    expect(encodeGraph([undefined, -0, 1n]).roots).toEqual([
      { $undef: 1 },
      { $num: "-0" },
      { $bigint: "1" },
    ]);
  });

  it("keeps plain objects, null prototypes and replaced prototypes", () => {
    expect(roundTrip({ a: 1, b: { c: [1, "x"] } })).toEqual({ a: 1, b: { c: [1, "x"] } });
    const bare = roundTrip(Object.assign(Object.create(null) as object, { a: 1 }));
    expect(Object.getPrototypeOf(bare)).toBe(null);
    const replaced = roundTrip(Object.setPrototypeOf({ own: 1 }, { polluted: "yes" }) as object);
    expect(Object.getPrototypeOf(replaced)).not.toBe(Object.prototype);
    expect((replaced as { polluted?: string }).polluted).toBe("yes");
    expect(Object.keys(replaced)).toEqual(["own"]);
  });

  it("decodes class instances as data under a prototype named after the class", () => {
    class Point {
      x: number;
      y: number;
      constructor(x: number, y: number) {
        this.x = x;
        this.y = y;
      }
    }
    const p = roundTrip(new Point(1, 2));
    expect(p).not.toBeInstanceOf(Point);
    expect({ ...p }).toEqual({ x: 1, y: 2 });
    expect((Object.getPrototypeOf(p) as { constructor: { name: string } }).constructor.name).toBe(
      "Point",
    );
    expect(Object.getPrototypeOf(roundTrip(new Point(3, 4)))).toBe(Object.getPrototypeOf(p));
  });

  it("keeps arrays (holes as undefined), dates, maps, sets and regexps", () => {
    // eslint-disable-next-line no-sparse-arrays
    const holey = roundTrip([1, , 3]);
    expect(holey).toEqual([1, undefined, 3]);
    expect(1 in holey).toBe(true);
    expect(roundTrip(new Date(86_400_000)).getTime()).toBe(86_400_000);
    expect(roundTrip(new Date(NaN)).getTime()).toBeNaN();
    const key = { k: 1 };
    const m = roundTrip(
      new Map<unknown, unknown>([
        [key, key],
        ["s", 2],
      ]),
    );
    const [k0] = m.keys();
    expect(m.get(k0)).toBe(k0);
    expect(m.get("s")).toBe(2);
    expect([...roundTrip(new Set([1, "a", 1n]))]).toEqual([1, "a", 1n]);
    const re = roundTrip(/a+b/giu);
    expect([re.source, re.flags]).toEqual(["a+b", "giu"]);
  });

  it("keeps binary values with their type", () => {
    const bytes = roundTrip(new Uint8Array([1, 2, 255]));
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect([...bytes]).toEqual([1, 2, 255]);
    const buf = roundTrip(Buffer.from("hello"));
    expect(Buffer.isBuffer(buf)).toBe(true);
    expect(buf.toString()).toBe("hello");
    expect([...roundTrip(new Float64Array([1.5, -2]))]).toEqual([1.5, -2]);
    expect([...roundTrip(new BigInt64Array([-1n]))]).toEqual([-1n]);
    const view = roundTrip(new Uint16Array([1, 2, 3, 4]).subarray(1, 3));
    expect([...view]).toEqual([2, 3]);
    const ab = roundTrip(new Uint8Array([9, 8]).buffer);
    expect(ab).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(ab)]).toEqual([9, 8]);
    const dv = roundTrip(new DataView(new Uint8Array([7]).buffer));
    expect(dv).toBeInstanceOf(DataView);
    expect(dv.getUint8(0)).toBe(7);
  });

  it("decodes functions as opaque functions that throw", () => {
    const f = roundTrip(function secret() {
      return 1;
    });
    expect(typeof f).toBe("function");
    expect(f.name).toBe("secret");
    expect(() => f()).toThrow(
      new TypeError("bouts: a function returned by the subject cannot be called from the test"),
    );
  });

  it("sends own enumerable string keys only, reads getters once and survives throwing ones", () => {
    let reads = 0;
    const source = {
      visible: 1,
      [Symbol("hidden")]: 2,
      get counted() {
        reads++;
        return "got";
      },
      get broken(): never {
        throw new Error("no");
      },
    };
    Object.defineProperty(source, "quiet", { value: 3, enumerable: false });
    const out = roundTrip(source);
    expect(reads).toBe(1);
    expect(Object.getOwnPropertySymbols(out)).toEqual([]);
    expect(out).toEqual({ visible: 1, counted: "got", broken: undefined });
    expect(Object.getOwnPropertyDescriptor(out, "counted")?.value).toBe("got");
  });

  it("round-trips an own __proto__ key as data without touching prototypes", () => {
    const input = JSON.parse('{"__proto__": {"polluted": "yes"}, "a": 1}') as object;
    const out = roundTrip(input);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ polluted: "yes" });
    expect(({} as { polluted?: string }).polluted).toBeUndefined();
  });

  it("keeps shared references and cycles", () => {
    const shared = { n: 1 };
    const a: Record<string, unknown> = { left: shared, right: shared };
    a.self = a;
    const list: unknown[] = [a];
    list.push(list);
    const [outA, outList] = decodeGraph(wire(encodeGraph([a, list]))).roots as [
      Record<string, unknown>,
      unknown[],
    ];
    expect(outA.left).toBe(outA.right);
    expect(outA.self).toBe(outA);
    expect(outList[0]).toBe(outA);
    expect(outList[1]).toBe(outList);
  });

  it("handles a 5,000-level nest and a 100,000-element array without recursion", () => {
    const deep: { next?: unknown } = {};
    let cur = deep;
    for (let i = 0; i < 5000; i++) cur = cur.next = {};
    const graph = encodeGraph([deep]);
    expect(graph.nodes).toHaveLength(5001);
    type Link = { next?: Link };
    let out = decodeGraph(wire(graph)).roots[0] as Link;
    let depth = 0;
    while (out.next) {
      out = out.next;
      depth++;
    }
    expect(depth).toBe(5000);
    const big = Array.from({ length: 100_000 }, (_, i) => ({ i }));
    const back = roundTrip(big);
    expect(back).toHaveLength(100_000);
    expect(back[99_999]).toEqual({ i: 99_999 });
  });

  it("refuses functions in arguments with a TypeError naming where they were", () => {
    const label = (i: number) => `argument ${i + 1}`;
    const encode = (args: unknown[]) => () => encodeGraph(args, { refuseFunctions: true, label });
    expect(encode([1, { onChange() {} }])).toThrow(
      new TypeError(
        "bouts: argument 2.onChange is a function: functions cannot be sent to the subject",
      ),
    );
    expect(encode([[0, { deep: [() => 1] }]])).toThrow(/argument 1\[1\]\.deep\[0\] is a function/);
    expect(encode([() => 1])).toThrow(/argument 1 is a function/);
    expect(encode([{ s: Symbol("x") }])).toThrow(/argument 1\.s is a symbol/);
  });

  it("rejects malformed graphs and graphs over the limits with a TypeError", () => {
    const bad: unknown[] = [
      null,
      { roots: [{ $ref: 0 }], nodes: [] },
      { roots: [{ $in: 0 }], nodes: [] },
      { roots: [{ $bigint: "1e3" }], nodes: [] },
      { roots: [{ what: 1 }], nodes: [] },
      { roots: [], nodes: [{ k: "nope" }] },
      { roots: [], nodes: [{ k: "object", proto: "object", entries: [[1, 2]] }] },
      { roots: [], nodes: [{ k: "regexp", source: "(", flags: "" }] },
      { roots: [], nodes: [{ k: "bytes", type: "Float64Array", b64: "AAA=" }] },
      {
        roots: [],
        nodes: [
          { k: "object", proto: { $ref: 1 }, entries: [] },
          { k: "object", proto: { $ref: 0 }, entries: [] },
        ],
      },
    ];
    for (const g of bad) expect(() => decodeGraph(g), JSON.stringify(g)).toThrow(TypeError);
    const wide = encodeGraph([Array.from({ length: 11 }, () => ({}))]);
    expect(() => decodeGraph(wide, { limits: { nodes: 10 } })).toThrow(/more than 10 nodes/);
    expect(() => decodeGraph(wide, { limits: { items: 10 } })).toThrow(/more than 10 items/);
    expect(MAX_FRAME_BYTES).toBe(16 * 1024 * 1024);
  });
});

describe("codec: frames", () => {
  it("the trusted side's built-in JSON writes exactly what the guarded writer writes", () => {
    // writeTrustedFrameSync (the bridge's requests) relies on this for every graph encodeGraph
    // can build: every kind of value, odd numbers, odd strings, odd keys, sharing and cycles.
    class Spot {
      x = 1;
      y = 2;
    }
    const cycle: Record<string, unknown> = { name: "loop" };
    cycle.self = cycle;
    const shared = { s: 1 };
    // eslint-disable-next-line no-sparse-arrays
    const sparse = [1, , 3];
    const wide = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i]));
    const values: unknown[] = [
      null,
      undefined,
      true,
      0,
      -0,
      NaN,
      Infinity,
      -Infinity,
      2 ** 53 + 2,
      1e-7,
      123456789012345678901234567890n,
      "",
      'quote " backslash \\ newline \n tab \t nul \u0000 del \u007f',
      "lone surrogates \ud800 \udfff, a pair \ud83d\ude00, line sep \u2028",
      { [Symbol("s")]: 1, plain: 2 },
      { "": 1, 'a"b': 3, "\ud800": 4, 1: "one", constructor: "c" },
      JSON.parse('{"__proto__": {"polluted": 1}}'),
      Object.create(null),
      new Spot(),
      [shared, shared, sparse, [[[]]]],
      cycle,
      new Map<unknown, unknown>([
        [{ k: 1 }, new Set([1, "2"])],
        ["x", null],
      ]),
      new Date(0),
      new Date(NaN),
      /a+b/giu,
      new Uint8Array([0, 255, 7]),
      new Float64Array([0.5, -0, NaN]),
      new TypeError("bad", { cause: new RangeError("worse") }),
      wide,
    ];
    const dir = mkdtempSync(path.join(os.tmpdir(), "bouts-frames-"));
    const file = path.join(dir, "frame");
    const written = (write: (fd: number, frame: unknown) => void, frame: unknown) => {
      const fd = openSync(file, "w");
      try {
        write(fd, frame);
      } finally {
        closeSync(fd);
      }
      return readFileSync(file);
    };
    try {
      const reply = encodeReply([cycle, wide], { result: [cycle, wide] });
      const frames = [
        ...values.map((v) => ({ t: "call", id: 7, name: "f", args: encodeGraph([v]), n: "ab" })),
        { t: "return", id: 1, reply, effects: { pollution: [], shape: { Object: 1 } } },
      ];
      for (const frame of frames) {
        const trusted = written(writeTrustedFrameSync, frame);
        expect(trusted.equals(written(writeFrameSync, frame))).toBe(true);
        expect(trusted.at(-1)).toBe(0x0a);
      }
      // Over the limit: a TypeError from both, and nothing written.
      const big = { t: "call", id: 8, name: "f", args: encodeGraph(["x".repeat(MAX_FRAME_BYTES)]) };
      for (const write of [writeTrustedFrameSync, writeFrameSync]) {
        expect(() => written(write, big)).toThrow(TypeError);
        expect(readFileSync(file)).toHaveLength(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("codec: errors", () => {
  it("keeps standard classes, messages, codes, causes and stacks", () => {
    const e = roundTrip(new RangeError("too big"));
    expect(e).toBeInstanceOf(RangeError);
    expect([e.name, e.message, e.constructor]).toEqual(["RangeError", "too big", RangeError]);
    expect(e.stack).toContain("too big");
    const coded = roundTrip(
      Object.assign(new Error("nope", { cause: { why: 1 } }), { code: "E_NO" }),
    );
    expect(coded.code).toBe("E_NO");
    expect(coded.cause).toEqual({ why: 1 });
    const agg = roundTrip(new AggregateError([], "many"));
    expect(agg).toBeInstanceOf(AggregateError);
    expect(agg.message).toBe("many");
  });

  it("subclasses the nearest standard class under the subject's own class name", () => {
    class MergeError extends TypeError {}
    class NamedError extends RangeError {
      override name = "NamedError";
    }
    const m = roundTrip(new MergeError("bad merge"));
    expect(m).toBeInstanceOf(TypeError);
    expect(m).not.toBeInstanceOf(MergeError);
    expect(m.constructor.name).toBe("MergeError");
    expect(m.name).toBe("TypeError"); // as in the subject: the class never set a name
    expect(m.message).toBe("bad merge");
    const n = roundTrip(new NamedError("x"));
    expect(n).toBeInstanceOf(RangeError);
    expect([n.name, n.constructor.name]).toEqual(["NamedError", "NamedError"]);
    expect(Object.getPrototypeOf(roundTrip(new MergeError("again")))).toBe(
      Object.getPrototypeOf(m),
    );
  });

  it("keeps a self-referencing cause and non-error thrown values", () => {
    const e = new Error("loop");
    (e as { cause?: unknown }).cause = e;
    const out = roundTrip(e);
    expect(out.cause).toBe(out);
    expect(decodeError(wire(encodeError("just a string")))).toBe("just a string");
    const decoded = decodeError(wire(encodeError(new SyntaxError("bad"))));
    expect(decoded).toBeInstanceOf(SyntaxError);
  });
});

describe("codec: replies", () => {
  it("applies the post-call state onto the caller's own objects", () => {
    class Box {
      v = 1;
    }
    const target: Record<string, unknown> = { keep: 1, gone: 2, nested: { a: 1 } };
    const arr = [1, 2, 3];
    const map = new Map([["a", 1]]);
    const set = new Set([1]);
    const date = new Date(1000);
    const bytes = new Uint8Array([1, 2]);
    const box = new Box();
    const { result } = simulateCall(
      [target, arr, map, set, date, bytes, box],
      (t: Record<string, unknown>, a, m, s, d, b, x) => {
        delete t.gone;
        t.added = t.nested;
        a.length = 1;
        a.push(9, 8);
        m.set("b", 2);
        m.delete("a");
        s.add(2);
        d.setTime(5);
        b[0] = 42;
        x.v = 2;
        return { same: t, nested: t.nested, fresh: { z: 1 } };
      },
    );
    expect(target).toEqual({ keep: 1, nested: { a: 1 }, added: target.nested });
    expect(target.added).toBe(target.nested);
    expect(arr).toEqual([1, 9, 8]);
    expect([...map]).toEqual([["b", 2]]);
    expect([...set]).toEqual([1, 2]);
    expect(date.getTime()).toBe(5);
    expect([...bytes]).toEqual([42, 2]);
    expect(box).toBeInstanceOf(Box);
    expect(box.v).toBe(2);
    expect(result.same).toBe(target);
    expect(result.nested).toBe(target.nested);
    expect(result.fresh).toEqual({ z: 1 });
  });

  it("sets a changed prototype, and keeps key order as the subject left it", () => {
    const target: Record<string, unknown> = { a: 1, b: 2 };
    const source = JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>;
    simulateCall([target, source], (t: Record<string, unknown>, s: Record<string, unknown>) => {
      Object.setPrototypeOf(t, s["__proto__"] as object);
      delete t.a;
      t.a = 3;
    });
    expect(Object.getPrototypeOf(target)).toBe(source["__proto__"]);
    expect(target.polluted).toBe("yes");
    expect(Object.keys(target)).toEqual(["b", "a"]);
    const orphan = { x: 1 };
    simulateCall([orphan], (o) => {
      Object.setPrototypeOf(o, null);
    });
    expect(Object.getPrototypeOf(orphan)).toBe(null);
  });

  it("leaves frozen caller objects alone and matches aliasing of the request", () => {
    const frozen = Object.freeze({ a: 1 });
    expect(() => simulateCall([frozen], (f: { a: number }) => (f.a = 2))).not.toThrow();
    expect(frozen.a).toBe(1);
    const shared = { n: 1 };
    const { result } = simulateCall([shared, [shared]], (s, list) => list[0] === s);
    expect(result).toBe(true);
  });

  it("refuses a reply whose inputs do not fit the request", () => {
    const objects: unknown[] = [];
    encodeGraph([{ a: 1 }], { objects });
    const arrayState = { inputs: [{ k: "array", items: [] }], nodes: [], roots: [null] };
    expect(() => applyReply(arrayState, objects)).toThrow(TypeError);
    const tooMany = {
      inputs: [
        { k: "date", ms: 1 },
        { k: "date", ms: 1 },
      ],
      nodes: [],
      roots: [1],
    };
    expect(() => applyReply(tooMany, objects)).toThrow(TypeError);
    expect(applyReply({ inputs: [], nodes: [], roots: [{ $in: 0 }] }, objects)).toBe(objects[0]);
  });
});

// ---- end to end: subject + broker + trusted bridge ----

interface Frame {
  t?: string;
  k?: string;
  id?: number;
  name?: string;
  [field: string]: unknown;
}
interface CheckResult {
  name: string;
  ok: boolean;
  error?: string;
}

interface Subject {
  child: ChildProcess;
  first: Frame;
  send(frame: Frame | string): void;
  /** Answers (`t` frames) after the first, in order. */
  next(): Promise<Frame>;
}

function startSubject(modulePath: string): Promise<Subject> {
  const child = spawn(
    process.execPath,
    ["--import", path.join(HARNESS, "preload.mjs"), path.join(HARNESS, "subject.mjs"), modulePath],
    { stdio: ["pipe", "pipe", "pipe", "pipe"] },
  );
  const queue: Frame[] = [];
  const waiting: ((f: Frame) => void)[] = [];
  onLines(child.stdio[3] as Readable, (line) => {
    const frame = JSON.parse(line) as Frame;
    if (typeof frame.t !== "string") return; // observation record
    const w = waiting.shift();
    if (w) w(frame);
    else queue.push(frame);
  });
  const next = () =>
    new Promise<Frame>((resolve) => {
      const f = queue.shift();
      if (f) resolve(f);
      else waiting.push(resolve);
    });
  const send = (frame: Frame | string) =>
    child.stdin.write((typeof frame === "string" ? frame : JSON.stringify(frame)) + "\n");
  return next().then((first) => ({ child, first, send, next }));
}

function bridgeSource(moduleId: string, exports: unknown, factories: string[]): string {
  const names = Object.keys(exports as object);
  return [
    `import { createModuleBridge } from ${JSON.stringify(path.join(HARNESS, "bridge.mjs"))};`,
    `const b = createModuleBridge(${JSON.stringify(moduleId)}, ${JSON.stringify(exports)}, ${JSON.stringify({ factories })});`,
    ...names.map((n) =>
      n === "default"
        ? "export default b.default;"
        : `export const ${n} = b[${JSON.stringify(n)}];`,
    ),
  ].join("\n");
}

function trustedScript(checks: Record<string, string>, imports: string): string {
  return [
    `import assert from "node:assert/strict";`,
    `import { once } from "node:events";`,
    imports,
    `const results = [];`,
    ...Object.entries(checks).map(
      ([name, body]) =>
        `try { await (async () => { ${body} })(); results.push({ name: ${JSON.stringify(name)}, ok: true }); }` +
        ` catch (e) { results.push({ name: ${JSON.stringify(name)}, ok: false, error: String(e?.stack ?? e) }); }`,
    ),
    `process.stdout.write(JSON.stringify(results) + "\\n");`,
    `process.exit(0);`,
  ].join("\n");
}

interface Session {
  results: CheckResult[];
  stderr: string;
  requests: Frame[];
  channelLeft: string[];
}

/**
 * Runs `checks` in a trusted process against `fixture` served by a subject: the broker forwards
 * requests and answers, except those `intercept` answers itself (as the host does for faults).
 */
async function runSession(
  dir: string,
  fixture: string,
  checks: Record<string, string>,
  options: { factories?: string[]; intercept?: (req: Frame) => Frame | null } = {},
): Promise<Session> {
  const subject = await startSubject(path.join(dir, fixture));
  expect(subject.first.t).toBe("ready");
  const base = fixture.replace(/\.mjs$/, "");
  writeFileSync(
    path.join(dir, `${base}.bridge.mjs`),
    bridgeSource(fixture, subject.first.exports, options.factories ?? []),
  );
  const script = path.join(dir, `${base}.trusted.mjs`);
  writeFileSync(
    script,
    trustedScript(
      checks,
      [
        `import * as mod from "./${base}.bridge.mjs";`,
        `import { pollution, SubjectFault } from ${JSON.stringify(path.join(HARNESS, "subject-api.mjs"))};`,
        `import { takeFaults } from ${JSON.stringify(path.join(HARNESS, "bridge.mjs"))};`,
      ].join("\n"),
    ),
  );
  const chan = mkdtempSync(path.join(os.tmpdir(), "bouts-chan-"));
  const trusted = spawn(process.execPath, [script], {
    stdio: ["pipe", "pipe", "pipe", "pipe"],
    env: { ...process.env, BOUTS_CHANNEL_DIR: chan },
  });
  const requests: Frame[] = [];
  const toTrusted: Writable = trusted.stdin;
  onLines(trusted.stdio[3] as Readable, (line) => {
    const req = JSON.parse(line) as Frame;
    if (typeof req.t !== "string") return;
    requests.push(req);
    const own = options.intercept?.(req) ?? null;
    if (own) toTrusted.write(JSON.stringify(own) + "\n");
    else subject.send(line);
  });
  void (async () => {
    for (;;) {
      const answer = await subject.next();
      if (!toTrusted.writableEnded) toTrusted.write(JSON.stringify(answer) + "\n");
    }
  })();
  let stdout = "";
  let stderr = "";
  trusted.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  trusted.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  // A test's own bound, not the runner's: generous, as the suite shares the cores.
  const timer = setTimeout(() => trusted.kill("SIGKILL"), 60_000);
  await exited(trusted);
  clearTimeout(timer);
  toTrusted.end();
  subject.child.stdin?.end();
  await exited(subject.child);
  const channelLeft = readdirSync(chan);
  rmSync(chan, { recursive: true, force: true });
  const results = stdout.trim() ? (JSON.parse(stdout) as CheckResult[]) : [];
  return { results, stderr, requests, channelLeft };
}

const MERGE_FIXTURE = `
const isPlain = (v) =>
  v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype;
export class MergeError extends TypeError {}
export class Point { constructor(x, y) { this.x = x; this.y = y; } }
export function deepMerge(target, source) {
  if (target === null || typeof target !== "object") throw new TypeError("target must be an object");
  const out = {};
  for (const [k, v] of Object.entries(target)) out[k] = isPlain(v) ? deepMerge(v, {}) : v;
  for (const [k, v] of Object.entries(source)) {
    if (k === "__proto__" || k === "constructor" || k === "prototype") continue;
    out[k] = isPlain(v) ? deepMerge(isPlain(out[k]) ? out[k] : {}, v) : v;
  }
  return out;
}
export const shallowMerge = (a, b) => Object.assign({}, a, b);
export function mergeInto(target, source) {
  for (const k of Object.keys(source)) target[k] = source[k];
  delete target.removeMe;
  return target;
}
export function unsafeMerge(target, source) {
  for (const k in source) {
    if (isPlain(source[k]) && target[k] && typeof target[k] === "object") unsafeMerge(target[k], source[k]);
    else target[k] = source[k];
  }
  return target;
}
export const probe = () => ({ polluted: ({}).polluted });
export function strictMerge() { throw new MergeError("no merging today"); }
export async function later(x) { await new Promise((r) => setTimeout(r, 5)); return x * 2; }
export async function failLater() { await null; throw new RangeError("too late"); }
export function hang() { for (;;); }
export const makeFn = () => function inner() { return 1; };
export const makePoint = () => new Point(1, 2);
export function mutateAll(arr, map, set, date) {
  arr.push(4); map.set("k", "v"); set.add(9); date.setTime(0);
}
export const VERSION = { major: 1, tags: ["a"] };
export default { deepMerge, describe() { return this === undefined ? "no this" : "ns"; } };
`;

const MERGE_CHECKS: Record<string, string> = {
  "deepMerge merges nested objects": `
    assert.deepStrictEqual(mod.deepMerge({ a: 1, n: { x: 1 } }, { b: 2, n: { y: 2 } }),
      { a: 1, b: 2, n: { x: 1, y: 2 } });`,
  "a deep copy does not alias its input (out.x.y = 99)": `
    const a = { x: { y: 1 } };
    const out = mod.deepMerge(a, {});
    out.x.y = 99;
    assert.equal(a.x.y, 1);`,
  "a shallow merge aliases its input as a direct call would": `
    const a = { x: { y: 1 } };
    const out = mod.shallowMerge(a, {});
    assert.equal(out.x, a.x);
    out.x.y = 99;
    assert.equal(a.x.y, 99);`,
  "mutation of an input is observed and the returned input is the caller's": `
    const t = { keep: 1, removeMe: 2 };
    const out = mod.mergeInto(t, { add: 3 });
    assert.equal(out, t);
    assert.deepStrictEqual(t, { keep: 1, add: 3 });`,
  "a Date and a Map returned by reference are the caller's": `
    const d = new Date(5); const m = new Map([["a", 1]]);
    const out = mod.deepMerge({}, { d, m });
    assert.equal(out.d, d);
    assert.equal(out.m, m);`,
  "a TypeError crosses as a TypeError": `
    assert.throws(() => mod.deepMerge(null, {}), TypeError);
    assert.throws(() => mod.deepMerge(null, {}), { name: "TypeError", message: "target must be an object" });`,
  "a custom TypeError subclass is caught as TypeError": `
    assert.throws(() => mod.strictMerge(), (e) =>
      e instanceof TypeError && e.constructor.name === "MergeError" && e.message === "no merging today");`,
  "prototype pollution is reported and undone in the subject": `
    pollution();
    mod.unsafeMerge({}, JSON.parse('{"__proto__": {"polluted": "yes"}}'));
    assert.deepStrictEqual(pollution(), ["Object.prototype.polluted"]);
    assert.deepStrictEqual(pollution(), []);
    assert.equal(mod.probe().polluted, undefined);
    assert.deepStrictEqual(pollution(), []);
    assert.equal(({}).polluted, undefined);`,
  "a prototype replaced by a polluted object is visible": `
    const out = mod.mergeInto({}, JSON.parse('{"__proto__": {"polluted": "yes"}}'));
    assert.notEqual(Object.getPrototypeOf(out), Object.prototype);
    assert.equal(out.polluted, "yes");
    assert.equal(Object.hasOwn(out, "polluted"), false);
    assert.deepStrictEqual(pollution(), []);`,
  "async functions return promises that resolve and reject": `
    const p = mod.later(21);
    assert.ok(p instanceof Promise);
    assert.equal(await p, 42);
    await assert.rejects(mod.failLater(), RangeError);
    const all = await Promise.all([1, 2, 3].map(async (x) => { await null; return mod.deepMerge({ x }, {}); }));
    assert.deepStrictEqual(all, [{ x: 1 }, { x: 2 }, { x: 3 }]);`,
  "a fault is a SubjectFault that assert.throws(f, Error) cannot accept": `
    takeFaults();
    assert.throws(() => assert.throws(() => mod.hang(), Error), assert.AssertionError);
    let caught;
    try { mod.hang(); } catch (e) { caught = e; }
    assert.ok(caught instanceof SubjectFault, String(caught));
    assert.deepStrictEqual(takeFaults().map((f) => f.fault), ["timeout", "timeout"]);
    assert.equal(caught.fault, "timeout");
    assert.equal(caught.name, "SubjectFault");
    assert.ok(!(caught instanceof Error));
    assert.match(String(caught), /timeout/);
    assert.deepStrictEqual(mod.deepMerge({ a: 1 }, {}), { a: 1 });`,
  "functions in arguments are refused with their path": `
    assert.throws(() => mod.deepMerge({}, { onChange() {} }),
      { name: "TypeError", message: /argument 2\\.onChange is a function/ });`,
  "namespace members are called with their object as this": `
    assert.deepStrictEqual(mod.default.deepMerge({ a: 1 }, { b: 2 }), { a: 1, b: 2 });
    assert.equal(mod.default.describe(), "ns");
    assert.equal(mod.default.deepMerge.name, "default.deepMerge");`,
  "value exports are decoded copies": `
    assert.deepStrictEqual(mod.VERSION, { major: 1, tags: ["a"] });`,
  "classes cannot cross": `
    assert.throws(() => new mod.Point(1, 2), { name: "TypeError", message: "bouts: classes cannot cross to the subject; call its functions" });`,
  "returned functions are opaque and instances are data": `
    assert.throws(() => mod.makeFn()(), TypeError);
    const p = mod.makePoint();
    assert.deepStrictEqual({ ...p }, { x: 1, y: 2 });
    assert.equal(Object.getPrototypeOf(p).constructor.name, "Point");`,
  "arrays, maps, sets and dates are mutated in place": `
    const arr = [1]; const map = new Map(); const set = new Set(); const date = new Date(9);
    assert.equal(mod.mutateAll(arr, map, set, date), undefined);
    assert.deepStrictEqual(arr, [1, 4]);
    assert.deepStrictEqual([...map], [["k", "v"]]);
    assert.deepStrictEqual([...set], [9]);
    assert.equal(date.getTime(), 0);`,
  "large and deep values cross in both directions": `
    const big = Array.from({ length: 100000 }, (_, i) => ({ i }));
    const out = mod.deepMerge({}, { big });
    assert.equal(out.big, big);
    const deep = {};
    let cur = deep;
    for (let i = 0; i < 5000; i++) cur = cur.next = {};
    const t = {};
    assert.equal(mod.mergeInto(t, { deep }).deep, deep);
    const copy = mod.shallowMerge({}, { text: "é".repeat(200000) });
    assert.equal(copy.text.length, 200000);`,
  "calls still block when fd 0 has been made non-blocking": `
    void process.stdin; // libuv makes a piped stdin non-blocking without reading it
    const started = Date.now();
    assert.equal(await mod.later(1), 2);
    assert.ok(Date.now() - started >= 4);`,
  "no call reported pollution except the polluting one": `
    assert.deepStrictEqual(pollution(), []);`,
};

const HTTP_FIXTURE = `
import http from "node:http";
export function createApp() {
  return http.createServer((req, res) => { res.setHeader("content-type", "text/plain"); res.end("hello " + req.url); });
}
export async function createAsyncApp() {
  await null;
  return { server: http.createServer((req, res) => res.end("async " + req.method)) };
}
export function notAServer() { return {}; }
`;

const HTTP_CHECKS: Record<string, string> = {
  "a factory's server is reached with fetch through the stand-in": `
    const app = mod.createApp();
    assert.equal(app.server, app);
    await new Promise((r) => app.listen(0, r));
    const { port } = app.address();
    const res = await fetch("http://127.0.0.1:" + port + "/x");
    assert.equal(await res.text(), "hello /x");
    assert.equal((await fetch("http://127.0.0.1:" + port + "/y")).status, 200);
    await new Promise((r) => app.close(r));`,
  "an async factory's .server works with listen(options)": `
    const s = mod.createAsyncApp().server;
    s.listen({ port: 0 });
    await once(s, "listening");
    const res = await fetch("http://127.0.0.1:" + s.address().port, { method: "POST", body: "b" });
    assert.equal(await res.text(), "async POST");
    s.closeAllConnections();
    await new Promise((r) => s.close(r));`,
  "a factory without a server throws a TypeError": `
    assert.throws(() => mod.notAServer(), { name: "TypeError", message: /notAServer/ });`,
};

describe("subject and bridge, end to end", () => {
  let dir: string;
  let merge: Session;
  let http: Session;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "bouts-harness-"));
    writeFileSync(path.join(dir, "merge.mjs"), MERGE_FIXTURE);
    writeFileSync(path.join(dir, "http.mjs"), HTTP_FIXTURE);
    writeFileSync(path.join(dir, "broken.mjs"), `throw new RangeError("cannot load");`);
    const timeout = (req: Frame): Frame | null =>
      req.name === "hang"
        ? { t: "fault", id: req.id, fault: "timeout", message: "the call outlived its limit" }
        : null;
    [merge, http] = await Promise.all([
      runSession(dir, "merge.mjs", MERGE_CHECKS, { intercept: timeout }),
      runSession(dir, "http.mjs", HTTP_CHECKS, {
        factories: ["createApp", "createAsyncApp", "notAServer"],
      }),
    ]);
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const check = (session: () => Session, name: string) => () => {
    const s = session();
    const result = s.results.find((r) => r.name === name);
    expect(result, s.stderr).toBeDefined();
    expect(result?.error ?? "").toBe("");
  };
  for (const name of Object.keys(MERGE_CHECKS))
    it(
      name,
      check(() => merge, name),
    );
  for (const name of Object.keys(HTTP_CHECKS))
    it(
      name,
      check(() => http, name),
    );

  it("sends every call as a numbered call frame", () => {
    const calls = merge.requests.filter((r) => r.t === "call");
    expect(calls.length).toBeGreaterThan(20);
    expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);
    expect(calls.find((c) => c.name === "default.deepMerge")).toBeDefined();
  });

  it("closes the subject's servers and removes their sockets", () => {
    expect(http.requests.filter((r) => r.t === "http-close")).toHaveLength(2);
    expect(http.channelLeft).toEqual([]);
  });

  it("describes exports in the ready frame", async () => {
    const s = await startSubject(path.join(dir, "merge.mjs"));
    const exports = s.first.exports as Record<string, unknown>;
    expect(exports.deepMerge).toEqual({ kind: "function" });
    expect(exports.Point).toEqual({ kind: "class" });
    expect(exports.default).toEqual({
      kind: "namespace",
      members: { deepMerge: { kind: "function" }, describe: { kind: "function" } },
    });
    expect(decodeGraph((exports.VERSION as { value: Graph }).value).roots[0]).toEqual({
      major: 1,
      tags: ["a"],
    });
    s.child.kill();
  });

  it("answers unknown and broken requests with a TypeError and keeps serving", async () => {
    const s = await startSubject(path.join(dir, "merge.mjs"));
    s.send({ t: "bogus", id: 1 });
    s.send("not json");
    s.send({ t: "call", id: 2, name: "nothing", args: { roots: [], nodes: [] } });
    s.send({ t: "call", id: 3, name: "deepMerge", args: { roots: [{ $ref: 5 }], nodes: [] } });
    s.send({ t: "call", id: 4, name: "deepMerge", args: encodeGraph([null, {}]) });
    s.send({ t: "call", id: 5, name: "deepMerge", args: encodeGraph([{ a: 1 }, { b: 2 }]) });
    const answers = [await s.next(), await s.next(), await s.next(), await s.next()];
    for (const [i, a] of answers.entries()) {
      expect(a.t).toBe("throw");
      expect(applyReply(a.reply, [])).toBeInstanceOf(TypeError);
      expect(a.id).toBe([1, null, 2, 3][i]);
    }
    const thrown = await s.next();
    expect([thrown.t, thrown.id, thrown.async]).toEqual(["throw", 4, false]);
    expect(thrown.effects).toMatchObject({ pollution: [], inherited: [] });
    expect(Object.keys((thrown.effects as { shape: object }).shape)).toHaveLength(12);
    const ok = await s.next();
    expect([ok.t, ok.id]).toEqual(["return", 5]);
    expect(applyReply(ok.reply, [{}, {}])).toEqual({ a: 1, b: 2 });
    s.child.kill();
  });

  it("leaves a call the stack a plain process has: a 5,000-level recursive merge works", async () => {
    // A recursive merge of a 5,000-level input works in a plain process; run inside the stdin
    // iterator's continuation it overflowed V8's stack (deep-merge's partial solution).
    const file = path.join(dir, "recursive.mjs");
    writeFileSync(
      file,
      [
        "function into(dst, src) {",
        "  for (const key of Object.keys(src)) {",
        "    const v = src[key];",
        '    if (v && typeof v === "object") into((dst[key] ??= {}), v);',
        "    else dst[key] = v;",
        "  }",
        "}",
        "export function merge(...sources) {",
        "  const out = {};",
        "  for (const s of sources) into(out, s);",
        "  return out;",
        "}",
        "",
      ].join("\n"),
    );
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 5000; i++) deep = deep.next = {};
    deep.leaf = true;
    const s = await startSubject(file);
    s.send({ t: "call", id: 1, name: "merge", args: encodeGraph([{}, root]) });
    const answer = await s.next();
    expect(answer.t).toBe("return");
    s.child.kill();
  });

  it("reports a module that fails to load, then fails every call with its error", async () => {
    const s = await startSubject(path.join(dir, "broken.mjs"));
    expect(s.first.t).toBe("load-error");
    const error = decodeError(s.first.error);
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toBe("cannot load");
    s.send({ t: "call", id: 1, name: "anything", args: encodeGraph([]) });
    const answer = await s.next();
    expect(answer.t).toBe("throw");
    expect((applyReply(answer.reply, []) as Error).message).toBe("cannot load");
    s.child.kill();
  });
});
