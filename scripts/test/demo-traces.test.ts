/**
 * The demo's traces (scripts/lib/demo-traces.ts) say what the platform sees: they parse; each file
 * of the archive ends at its real digest and every edit starts where its file's last one ended;
 * their tokens are the gateway calls', in order; and they keep their fixtures' signals (the same
 * waste, churn and misuse, the tamperer's tampering, no evidence against the honest agent).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  extractEfficiency,
  extractTraceEvidence,
  extractUsage,
  parseTrace,
  tracePathsOf,
  type Trace,
} from "@bouts/telemetry";
import { ChallengeManifestSchema } from "@bouts/contracts";
import {
  buildDemoTrace,
  DEMO_AGENT_MODELS,
  DEMO_TRACE_KINDS,
  planDemoCalls,
  type GatewayCall,
} from "../lib/demo-traces.ts";
import { ROOT } from "../lib/local-platform.ts";

const DIR = path.join(ROOT, "challenges/notes-api/submissions/complete");
const files = new Map(
  readdirSync(DIR).map((f) => [f, new Uint8Array(readFileSync(path.join(DIR, f)))]),
);
const T = Date.parse("2026-12-01T10:00:00.000Z");

function parse(text: string): Trace {
  const r = parseTrace(text);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

const fixture = (kind: string) =>
  parse(readFileSync(path.join(ROOT, "packages/telemetry/fixtures", `${kind}.jsonl`), "utf8"));

/** Gateway calls as the local fake model would answer the plan (a token per 4 prompt bytes). */
function answer(kind: (typeof DEMO_TRACE_KINDS)[number]): GatewayCall[] {
  return planDemoCalls(kind, files).map((c, i) => ({
    model: DEMO_AGENT_MODELS[kind],
    tokensIn: Math.ceil(Buffer.byteLength(JSON.stringify(c.messages)) / 4),
    tokensOut: Math.min(c.max_tokens, 4096),
    at: T + 1000 * (i + 1),
  }));
}

/** The protected and hidden paths the score role uses on notes-api-agent. */
const evidenceOptions = tracePathsOf(
  ChallengeManifestSchema.parse(
    JSON.parse(readFileSync(path.join(ROOT, "challenges/notes-api/challenge.json"), "utf8")),
  ),
);

describe("the demo traces", () => {
  for (const kind of DEMO_TRACE_KINDS) {
    it(`${kind}: parses, ends each archive file at its digest, and reports the gateway's tokens`, () => {
      const calls = answer(kind);
      const trace = parse(buildDemoTrace(kind, "notes-api-agent", files, calls));
      expect(trace.header.challengeId).toBe("notes-api-agent");
      expect(trace.header.model).toBe(DEMO_AGENT_MODELS[kind]);
      // The tokens, message by message, are the calls'.
      const spent = trace.events.flatMap((e) =>
        e.type !== "test_run" && e.tokensIn !== undefined ? [[e.tokensIn, e.tokensOut]] : [],
      );
      expect(spent).toEqual(calls.map((c) => [c.tokensIn, c.tokensOut]));
      const usage = extractUsage(trace).tokens;
      expect(usage?.tokensIn).toBe(calls.reduce((n, c) => n + c.tokensIn, 0));
      // Each file's edits chain, and the last one of an archive file ends at its bytes' digest.
      const last = new Map<string, string | null>();
      for (const e of trace.events) {
        if (e.type !== "edit") continue;
        if (last.has(e.path) && e.kind !== "create")
          expect(e.before, `seq ${e.seq}`).toBe(last.get(e.path));
        last.set(e.path, e.after ?? null);
      }
      for (const [p, after] of last)
        if (files.has(p))
          expect(after, p).toBe(
            `sha256:${createHash("sha256").update(files.get(p)!).digest("hex")}`,
          );
      expect(last.has("app.mjs")).toBe(true);
      // Times are the calls' own, in order, and end with the last call.
      const times = trace.events.map((e) => Date.parse(e.ts));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      expect(times.at(-1)).toBe(calls.at(-1)!.at);
    });

    it(`${kind}: keeps its fixture's waste, churn and misuse`, () => {
      const demo = extractEfficiency(parse(buildDemoTrace(kind, "x", files, answer(kind))), {
        tokenBudget: 60_000,
      }).input;
      const original = extractEfficiency(fixture(kind), { tokenBudget: 60_000 }).input;
      expect({ ...demo, tokensUsed: 0 }).toEqual({ ...original, tokensUsed: 0 });
    });
  }

  it("keeps the tamperer's tampering and finds nothing against the other two", () => {
    const triggers = (kind: (typeof DEMO_TRACE_KINDS)[number]) => {
      const ev = extractTraceEvidence(
        parse(buildDemoTrace(kind, "x", files, answer(kind))),
        evidenceOptions,
      );
      return [...ev.integrity, ...ev.exploits].map((i) => i.trigger).sort();
    };
    expect(triggers("tamperer")).toEqual(
      expect.arrayContaining([
        "hidden-test-access",
        "test-file-modified",
        "test-tampering",
        "harness-exit-forcing",
      ]),
    );
    for (const honest of ["efficient-honest", "wasteful"] as const)
      expect(triggers(honest).filter((t) => !t.endsWith("-disclosed"))).toEqual([]);
  });

  it("refuses calls that do not match the fixture's model calls one for one", () => {
    expect(() => buildDemoTrace("wasteful", "x", files, answer("wasteful").slice(1))).toThrow(
      /5 gateway calls for 6 messages/,
    );
  });
});
