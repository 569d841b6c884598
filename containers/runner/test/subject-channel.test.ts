/**
 * The subject's channel reader under arbitrary and hostile bytes: it never throws, bounds every
 * line by what it can be, and gives the same items however the bytes are split into chunks.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createRecordAllowance,
  createSubjectChannel,
  MAX_RECORD_BYTES,
  MAX_RECORD_BYTES_PER_RUN,
  type ChannelItem,
} from "../src/run/subject-channel.ts";

function read(chunks: Buffer[], allowance = createRecordAllowance()): ChannelItem[] {
  const items: ChannelItem[] = [];
  const feed = createSubjectChannel((i) => items.push(i), allowance);
  for (const c of chunks) feed(c);
  return items;
}

/** Splits `bytes` at the given cut points (any order, any count). */
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const c of at) {
    out.push(bytes.subarray(prev, c));
    prev = c;
  }
  out.push(bytes.subarray(prev));
  return out;
}

const poison = fc.constantFrom<unknown>(
  { toString: 1, valueOf: 2 },
  { toString: null },
  { valueOf: "x" },
  [{ toString: 1 }],
  "x".repeat(1000),
  -0,
  1e308,
);
const hostileRecord = fc.record(
  {
    k: fc.oneof(
      fc.constantFrom(
        "warning",
        "unhandled-rejection",
        "uncaught-exception",
        "network",
        "dns",
        "probe",
        "test-read",
        "result",
        "end",
      ),
      poison,
    ),
    name: fc.oneof(fc.string(), poison),
    message: fc.oneof(fc.string(), poison),
    target: fc.oneof(fc.string(), poison),
    host: fc.oneof(fc.string(), poison),
    path: fc.oneof(fc.string(), poison),
  },
  { requiredKeys: ["k"] },
);
const line = fc.oneof(
  hostileRecord.map((r) => JSON.stringify(r)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ unit: "binary" }),
  fc.record({ t: fc.oneof(fc.string(), poison), id: fc.anything() }).map((f) => JSON.stringify(f)),
);

describe("the subject's channel", () => {
  it("never throws on arbitrary lines, and yields only checked items", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (lines, cuts) => {
          const bytes = Buffer.from(lines.map((l) => l.replaceAll("\n", " ") + "\n").join(""));
          const items = read(split(bytes, cuts));
          for (const i of items) {
            if (i.kind === "record") {
              for (const v of Object.values(i.record)) expect(typeof v).toBe("string");
            } else if (i.kind === "frame") expect(typeof i.frame.t).toBe("string");
            else expect(typeof i.what).toBe("string");
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("gives the same items however the bytes are split", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (lines, cuts) => {
          const bytes = Buffer.from(lines.map((l) => l.replaceAll("\n", " ") + "\n").join(""));
          expect(read(split(bytes, cuts))).toEqual(read([bytes]));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("drops a record over its bound as it arrives, with one violation, and reads on", () => {
    const big = Buffer.from(
      JSON.stringify({ k: "warning", name: "DeprecationWarning", message: "x".repeat(1 << 20) }),
    );
    const items = read([
      ...split(big, [1, 2, 3, 5000, 70000, 900000]),
      Buffer.from('\n{"k":"network","target":"1.2.3.4:80"}\n'),
    ]);
    expect(items).toEqual([
      { kind: "violation", what: `an observation record larger than ${MAX_RECORD_BYTES} bytes` },
      { kind: "record", record: { k: "network", target: "1.2.3.4:80" } },
    ]);
  });

  it("refuses a line that is neither frame nor record once past the record bound", () => {
    const items = read([Buffer.from(`[${"1,".repeat(10_000)}1]\n{"t":"ready"}\n`)]);
    expect(items.map((i) => i.kind)).toEqual(["violation", "frame"]);
  });

  it("keeps frames up to the frame bound and parses them whole", () => {
    const reply = "y".repeat(2 << 20);
    const items = read([Buffer.from(JSON.stringify({ t: "return", id: 1, reply }) + "\n")]);
    expect(items).toHaveLength(1);
    expect(items[0]!.kind === "frame" && items[0]!.frame.reply === reply).toBe(true);
  });

  it("stops reading records past the run's allowance, saying so once, across incarnations", () => {
    const allowance = createRecordAllowance();
    const rec = Buffer.from(
      JSON.stringify({ k: "warning", name: "DeprecationWarning", message: "m".repeat(4000) }) +
        "\n",
    );
    const n = Math.ceil(MAX_RECORD_BYTES_PER_RUN / rec.length) + 10;
    const first = read(
      Array.from({ length: n }, () => rec),
      allowance,
    );
    const second = read([rec, Buffer.from('{"t":"ready"}\n')], allowance);
    expect(first.filter((i) => i.kind === "violation")).toHaveLength(1);
    expect(first.filter((i) => i.kind === "record").length).toBeLessThan(n);
    expect(second).toEqual([{ kind: "frame", frame: { t: "ready" } }]);
  });

  it("counts a record hidden behind a leading key against the record bound too", () => {
    const hidden = JSON.stringify({ x: "z".repeat(20_000), k: "network", target: "a" });
    expect(read([Buffer.from(hidden + "\n")])).toEqual([
      {
        kind: "violation",
        what: `a line larger than ${MAX_RECORD_BYTES} bytes that is neither a frame nor a record`,
      },
    ]);
  });
});
