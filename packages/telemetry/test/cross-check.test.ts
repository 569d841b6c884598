/**
 * The trace's cross-checks against what the platform observed (src/cross-check.ts): honest traces
 * agree (including unusual honest ones), forged ones and traces of other submissions are
 * contradicted with both numbers, and each rule's edges hold.
 */
import { TRUST_CAPS } from "@bouts/scoring";
import { describe, expect, it } from "vitest";
import {
  assessTraceTrust,
  CLOCK_SKEW_MS,
  crossCheckTrace,
  isSubmitCall,
  parseTrace,
  resolveArchivePath,
  type CrossCheckName,
  type TraceCrossCheck,
  type TraceEvent,
} from "../src/index.ts";
import otelText from "../fixtures/otel-genai.json?raw";
import { at, buildTrace, edit, message, testRun, tool } from "./build.ts";
import {
  digest,
  FAILING,
  forgedEvents,
  honestEvents,
  observations,
  otherSubmissionEvents,
  RECEIVED,
  renumbered,
  report,
  STATIC_IDS,
} from "./platform.ts";

const check = (events: TraceEvent[], over: Parameters<typeof observations>[0] = {}) =>
  crossCheckTrace(buildTrace(events), observations(over), report());
const outcomes = (x: TraceCrossCheck, name: CrossCheckName) =>
  x.checks.filter((c) => c.check === name).map((c) => c.outcome);
const contradicted = (x: TraceCrossCheck) => x.contradictions.map((c) => c.check);

describe("crossCheckTrace — an honest trace", () => {
  const x = check(honestEvents());

  it("is anchored and contradicted by nothing", () => {
    expect(x.contradictions).toEqual([]);
    expect(x.anchored).toBe(true);
    expect(x.digestsMatched).toBe(3);
    expect(x.observedTokens).toBe(31_100);
  });

  it("matches each check, with the numbers", () => {
    expect(outcomes(x, "files")).toEqual(["match", "match", "match"]);
    expect(x.checks.find((c) => c.path === "src/notes.ts")).toMatchObject({
      outcome: "match",
      seq: 11,
      trace: digest("src/notes.ts"),
      platform: digest("src/notes.ts"),
    });
    expect(outcomes(x, "times")).toEqual(["match"]);
    expect(x.checks.find((c) => c.check === "usage")?.detail).toBe(
      "the trace reports 31 100 tokens in 4 calls; the gateway metered 31 100 in 4",
    );
    expect(x.checks.find((c) => c.check === "tests")?.detail).toBe(
      "the last test run (seq 14) agrees with the runner on 20 tests",
    );
    expect(outcomes(x, "submissions")).toEqual(["match"]);
  });

  it("is cross-checked and uncapped, its basis saying what matched", () => {
    const t = assessTraceTrust(x);
    expect(t).toMatchObject({ provenance: "cross-checked", cap: null });
    expect(t.basis).toMatch(/^cross-checked: 3 file digest\(s\) match the archive; /);
    expect(t.basis).toContain("31 100 tokens");
    expect(t.basis.length).toBeLessThanOrEqual(500);
  });
});

describe("crossCheckTrace — hostile traces", () => {
  it("contradicts a forged trace on tokens, calls and its last test run, with each number", () => {
    const x = check(forgedEvents());
    expect(contradicted(x)).toEqual(["usage", "usage", "tests"]);
    const [tokens, calls, tests] = x.contradictions;
    expect(tokens).toMatchObject({ trace: 3_300, platform: 31_100 });
    expect(tokens?.detail).toBe(
      "the trace reports 3 300 tokens, below 90 % of the 31 100 the gateway metered (gateway)",
    );
    expect(calls).toMatchObject({ trace: 2, platform: 4 });
    expect(tests).toMatchObject({ seq: 5, trace: 3, platform: 20 });
    for (const id of FAILING)
      expect(tests?.detail).toContain(`"${id}" passed in the trace, failed in the runner`);
    // Right digests do not save it: anchored, but contradicted.
    expect(x.anchored).toBe(true);
    const t = assessTraceTrust(x);
    expect(t).toMatchObject({ provenance: "self-reported", cap: TRUST_CAPS.contradicted });
    expect(t.basis).toMatch(
      /^the platform's records contradict the trace \(3\); the trace reports 3 300 tokens/,
    );
  });

  it("contradicts a trace of another submission on its files and its times", () => {
    const x = check(otherSubmissionEvents());
    expect(contradicted(x)).toEqual(["files", "files", "times"]);
    expect(x.anchored).toBe(false);
    expect(x.contradictions[0]?.detail).toBe(
      `"src/notes.ts": the trace's final digest sha256:888888888888… (seq 4) is not the file that ran (sha256:111111111111…)`,
    );
    expect(x.contradictions[2]?.detail).toMatch(
      /^the trace ends \(seq 8 at 2025-12-31T21:00:08\.000Z\) before the agent's previous submission was received \(2025-12-31T22:00:00\.000Z\)/,
    );
    expect(assessTraceTrust(x).cap).toBe(TRUST_CAPS.contradicted);
  });

  it("contradicts a trace that deletes a file the archive has", () => {
    const x = check([
      edit(1, "src/notes.ts", "modify", { after: digest("src/notes.ts") }),
      edit(2, "src/search.ts", "delete"),
    ]);
    expect(contradicted(x)).toEqual(["files"]);
    expect(x.contradictions[0]?.detail).toMatch(
      /"src\/search\.ts": the trace deletes it at seq 2, but the archive that ran has it/,
    );
    expect(x.anchored).toBe(false);
  });

  it("contradicts events dated after the receipt, and a start after it", () => {
    const late = RECEIVED + CLOCK_SKEW_MS + 1_000;
    const x = crossCheckTrace(
      {
        ...buildTrace([
          message(1, "assistant"),
          { ...message(2, "assistant"), ts: new Date(late).toISOString() },
        ]),
        header: { format: "bouts.trace/v1", startedAt: new Date(late).toISOString() },
      },
      observations({ usage: null }),
      report(),
    );
    expect(contradicted(x)).toEqual(["times", "times"]);
    expect(x.contradictions[0]?.detail).toMatch(
      /^the trace starts at 2026-01-01T00:15:01\.000Z, after the platform received it \(2026-01-01T00:10:00\.000Z, 5 min allowed\)/,
    );
    expect(x.contradictions[1]).toMatchObject({ seq: 2 });
    expect(x.contradictions[1]?.detail).toMatch(
      /^1 event\(s\) dated after the platform received the submission .*first seq 2 at 2026-01-01T00:15:01\.000Z/,
    );
  });

  it("contradicts more successful submissions than the platform recorded", () => {
    const submit = (seq: number, outcome: "ok" | "error" = "ok") =>
      tool(seq, "mcp__bouts__submit_solution", '{"challenge":"notes-api"}', { outcome });
    const x = check([submit(1), submit(2), submit(3, "error"), submit(4)], { usage: null });
    expect(x.contradictions).toEqual([
      expect.objectContaining({
        check: "submissions",
        trace: 3,
        platform: 2,
        detail:
          "the trace shows 3 successful submissions (seq 1, 2, 4); the platform recorded 1 before this one (at most 2 with it)",
      }),
    ]);
    expect(check([submit(1), submit(2)], { usage: null }).contradictions).toEqual([]);
  });
});

describe("crossCheckTrace — honest traces that look unusual", () => {
  it("does not contradict the OTel fixture", () => {
    const parsed = parseTrace(otelText);
    if (!parsed.ok) throw new Error("fixture refused");
    const x = crossCheckTrace(
      parsed.value,
      observations({
        files: new Map([["src/auth.ts", "a".repeat(64)]]),
        receivedAt: Date.parse("2026-03-02T09:05:00Z"),
        previousReceivedAt: null,
        usage: {
          source: "ai-gateway",
          calls: 3,
          tokensIn: 25_200,
          tokensOut: 1_900,
          callsWithoutUsage: 0,
          models: [],
          from: 0,
          to: Date.parse("2026-03-02T09:05:00Z"),
        },
      }),
      {
        challengeId: "auth-token-expiry",
        staticTests: [
          { id: "auth-expiry", status: "passed" },
          { id: "auth-bypass-token", status: "failed" },
        ],
        adversarialTests: [],
      },
    );
    expect(x.contradictions).toEqual([]);
    // Its digests are not sha256:<64 hex>: nothing to anchor it, so unchecked, not contradicted.
    expect(outcomes(x, "files")).toEqual(["not-comparable"]);
    expect(x.anchored).toBe(false);
    expect(outcomes(x, "tests")).toEqual(["match"]);
    expect(assessTraceTrust(x)).toMatchObject({
      provenance: "self-reported",
      cap: TRUST_CAPS.unchecked,
    });
  });

  it("notes scratch files outside the archive without contradicting them", () => {
    const x = check(
      renumbered([
        ...honestEvents().slice(0, 12),
        edit(0, "scratch/try.ts", "create", { after: `sha256:${"c".repeat(64)}` }),
        edit(0, "debug.log", "create", { after: `sha256:${"d".repeat(64)}` }),
        ...honestEvents().slice(12),
      ]),
    );
    expect(x.contradictions).toEqual([]);
    expect(x.anchored).toBe(true);
    expect(x.checks.find((c) => c.path === "scratch/try.ts")).toMatchObject({
      outcome: "not-comparable",
      detail: '"scratch/try.ts": not in the archive (a scratch file, or one left out)',
    });
  });

  it("matches paths recorded under a wrapper folder, and in other spellings", () => {
    const files = new Map([
      ["src/notes.ts", "ab".repeat(32)],
      ["src/search.ts", "cd".repeat(32)],
      ["NOTES.md", "ef".repeat(32)],
    ]);
    const x = check(
      [
        edit(1, "repo/src/notes.ts", "modify", { after: `SHA256:${"AB".repeat(32)}` }),
        edit(2, "./src/search.ts", "modify", { after: `sha256:${"cd".repeat(32)}` }),
        edit(3, "repo\\NOTES.md", "create", { after: `sha256:${"Ef".repeat(32)}` }),
      ],
      { usage: null, files },
    );
    expect(x.contradictions).toEqual([]);
    expect(x.digestsMatched).toBe(3);
  });

  it("accepts more tokens and calls than the gateway metered (calls outside it)", () => {
    const events = honestEvents();
    events.push(message(17, "assistant", { tokensIn: 50_000, tokensOut: 5_000, model: "local" }));
    const x = check(events);
    expect(x.contradictions).toEqual([]);
    expect(outcomes(x, "usage")).toEqual(["match"]);
  });

  it("accepts events within the clock skew of the receipt", () => {
    const near = new Date(RECEIVED + CLOCK_SKEW_MS - 1_000).toISOString();
    const events = honestEvents();
    events[events.length - 1] = { ...events[events.length - 1]!, ts: near };
    expect(check(events).contradictions).toEqual([]);
  });

  it("does not contradict a trace without tokens: the gateway's figure is used", () => {
    const events = honestEvents().map((e): TraceEvent => {
      if (e.type !== "message") return e;
      const { tokensIn: _in, tokensOut: _out, ...rest } = e;
      return rest;
    });
    const x = check(events);
    expect(x.contradictions).toEqual([]);
    expect(x.checks.find((c) => c.check === "usage")).toMatchObject({
      outcome: "not-comparable",
      detail: "the trace reports no tokens; the gateway's 31 100 tokens in 4 calls are used",
    });
  });
});

describe("crossCheckTrace — rules at their edges", () => {
  it("resolves a wrapper folder only when the archive has no folder of that name", () => {
    const files = new Map([
      ["src/x.ts", "1"],
      ["y.ts", "2"],
    ]);
    expect(resolveArchivePath("repo/src/x.ts", files)).toBe("src/x.ts");
    expect(resolveArchivePath("./src/x.ts", files)).toBe("src/x.ts");
    expect(resolveArchivePath("lib/y.ts", files)).toBe("y.ts");
    // "src" is a folder of the archive: src/y.ts is a file it does not have, not a wrapped y.ts.
    expect(resolveArchivePath("src/y.ts", files)).toBeNull();
    expect(
      resolveArchivePath(
        "src/src/x.ts",
        new Map([
          ["src/x.ts", "1"],
          ["src/y.ts", "2"],
        ]),
      ),
    ).toBeNull();
    expect(resolveArchivePath("a/b/src/x.ts", files)).toBeNull();
    expect(resolveArchivePath("/abs/src/x.ts", files)).toBeNull();
  });

  it("does not compare a file a later tool call may have changed", () => {
    const x = check(
      [
        edit(1, "src/notes.ts", "modify", { after: `sha256:${"e".repeat(64)}` }),
        tool(2, "bash", '{"cmd":"npx prettier --write src/notes.ts"}', {
          category: "exec",
          paths: ["src/notes.ts"],
        }),
        tool(3, "read_file", '{"path":"src/search.ts"}', {
          category: "read",
          paths: ["src/search.ts"],
        }),
        edit(4, "src/search.ts", "modify", { after: digest("src/search.ts") }),
      ],
      { usage: null },
    );
    expect(x.contradictions).toEqual([]);
    expect(x.checks[0]).toMatchObject({ outcome: "not-comparable", path: "src/notes.ts" });
    expect(x.checks[0]?.detail).toContain('touched by tool "bash" at seq 2');
    expect(x.anchored).toBe(true);
  });

  it("compares only sha256:<64 hex> digests, and without platform digests nothing", () => {
    const short = check([edit(1, "src/notes.ts", "modify", { after: "sha256:11" })], {
      usage: null,
    });
    expect(short.checks[0]).toMatchObject({ outcome: "not-comparable" });
    expect(short.checks[0]?.detail).toContain(
      'the trace\'s final digest "sha256:11" is not sha256:<64 hex>',
    );
    const none = check(honestEvents(), { files: null });
    expect(outcomes(none, "files")).toEqual(["not-comparable"]);
    expect(none.anchored).toBe(false);
  });

  it("skips private, generated and unknown ids, and statuses a sandbox decides", () => {
    const x = crossCheckTrace(
      buildTrace([
        testRun(1, 4, 0, {
          tests: ["notes-get", "notes-create", "gen-1", "my-own-test", "notes-list"],
        }),
      ]),
      observations({ privateTestIds: new Set(["notes-get"]), usage: null }),
      report({
        staticTests: report().staticTests.map((t) =>
          t.id === "notes-get"
            ? { ...t, status: "failed" as const }
            : t.id === "notes-list"
              ? { ...t, status: "timeout" as const }
              : t,
        ),
      }),
    );
    expect(x.contradictions).toEqual([]);
    expect(x.checks.find((c) => c.check === "tests")?.detail).toBe(
      "the last test run (seq 1) agrees with the runner on 1 tests",
    );
  });

  it("contradicts a failure the runner did not see, and skips a run followed by a code edit", () => {
    const failing = check([testRun(1, 19, 1, { failedTests: ["notes-create"] })], { usage: null });
    expect(failing.contradictions[0]?.detail).toContain(
      '"notes-create" failed in the trace, passed in the runner',
    );
    const edited = check(
      [
        testRun(1, 20, 0, { tests: [...STATIC_IDS] }),
        edit(2, "src/notes.ts", "modify"),
        edit(3, "NOTES.md", "modify"),
      ],
      { usage: null },
    );
    expect(edited.contradictions).toEqual([]);
    expect(edited.checks.find((c) => c.check === "tests")?.detail).toContain(
      "followed by an edit (seq 2)",
    );
    const notes = check(
      [
        testRun(1, 17, 3, { tests: [...STATIC_IDS], failedTests: FAILING }),
        edit(2, "NOTES.md", "modify"),
      ],
      { usage: null },
    );
    expect(outcomes(notes, "tests")).toEqual(["match"]);
  });

  it("reads a test run that could not run as saying nothing passed", () => {
    const x = check([testRun(1, 0, 0, { tests: ["notes-list-pagination"], outcome: "error" })], {
      usage: null,
    });
    expect(outcomes(x, "tests")).toEqual(["not-comparable"]);
  });

  it("recognises submissions by MCP tool, CLI and API, and only successful ones to this challenge", () => {
    const call = (name: string, args = "{}") => tool(1, name, args);
    expect(isSubmitCall(call("submit_solution"))).toBe(true);
    expect(isSubmitCall(call("mcp__bouts__submit_solution"))).toBe(true);
    expect(isSubmitCall(call("bouts.submit_solution"))).toBe(true);
    expect(isSubmitCall(call("resubmit_solution"))).toBe(false);
    expect(
      isSubmitCall(call("bash", '{"command":"npx bouts submit . --challenge notes-api"}')),
    ).toBe(true);
    expect(isSubmitCall(call("bash", "npm run bouts -- submit . --challenge notes-api"))).toBe(
      true,
    );
    expect(isSubmitCall(call("bash", "bouts status 42"))).toBe(false);
    expect(
      isSubmitCall(
        call(
          "bash",
          "curl -X POST -F archive=@a.tgz https://bouts.dev/v1/challenges/notes-api/submissions",
        ),
      ),
    ).toBe(true);
    expect(
      isSubmitCall(call("http", '{"method":"post","url":"/v1/challenges/notes-api/submissions"}')),
    ).toBe(true);
    expect(
      isSubmitCall(call("bash", "curl https://bouts.dev/v1/challenges/notes-api/submissions")),
    ).toBe(false);
    expect(
      isSubmitCall(call("bash", "curl -X POST https://bouts.dev/v1/submissions/42/rejudge")),
    ).toBe(false);

    const other = (seq: number) => tool(seq, "submit_solution", '{"challenge":"todo-api"}');
    const x = check([other(1), other(2), other(3)], { usage: null });
    expect(x.contradictions).toEqual([]);
    expect(x.checks.find((c) => c.check === "submissions")?.trace).toBe(0);
  });

  it("says what it could not compare when the platform metered nothing", () => {
    const x = check(honestEvents(), { usage: null, previousReceivedAt: null });
    expect(x.checks.find((c) => c.check === "usage")).toMatchObject({
      outcome: "not-comparable",
      detail: "the platform's gateway metered no model calls",
    });
    expect(x.observedTokens).toBeNull();
    expect(x.contradictions).toEqual([]);
  });

  it("is unchecked, capped at 50, when no digest could be compared", () => {
    const events = honestEvents().map((e) =>
      e.type === "edit" ? { ...e, after: "sha256:short" } : e,
    );
    const x = check(events);
    expect(x.contradictions).toEqual([]);
    expect(x.anchored).toBe(false);
    const t = assessTraceTrust(x);
    expect(t).toMatchObject({ provenance: "self-reported", cap: TRUST_CAPS.unchecked });
    expect(t.basis).toMatch(/^the trace names no file digest the platform could compare/);
  });

  it("is deterministic and dates every time it cites", () => {
    expect(check(forgedEvents())).toEqual(check(forgedEvents()));
    expect(at(1)).toBe("2026-01-01T00:00:01.000Z");
  });
});
