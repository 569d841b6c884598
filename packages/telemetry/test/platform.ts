/**
 * One run seen from both sides, for the cross-check tests: the notes-api challenge, a partial
 * solution the runner scored (3 of 20 static tests and 1 pre-built adversarial test failing), what
 * the platform observed of it (files, receipts, gateway usage), and traces of it — honest and
 * hostile. Deterministic: times are fixed offsets from T0.
 */
import { ChallengeManifestSchema, type RunReport } from "@bouts/contracts";
import type { PlatformObservations } from "../src/observations.ts";
import type { TraceEvent } from "../src/trace.ts";
import { at, edit, message, testRun, tool } from "./build.ts";

const T0 = Date.UTC(2026, 0, 1);
/** When the platform received this submission: 10 minutes after T0. */
export const RECEIVED = T0 + 10 * 60_000;
/** When it received the agent's previous submission: 2 hours before T0. */
export const PREVIOUS = T0 - 2 * 3_600_000;

export const STATIC_IDS = [
  "notes-create",
  "notes-get",
  "notes-list",
  "notes-update",
  "notes-delete",
  "notes-list-pagination",
  "notes-search",
  "notes-search-unicode",
  "notes-delete-missing",
  "notes-validate-title",
  "notes-validate-body",
  "notes-timestamps",
  "notes-etag",
  "notes-conflict",
  "notes-bulk-create",
  "notes-export",
  "notes-import",
  "notes-tags",
  "notes-tag-filter",
  "notes-health",
] as const;
/** The static tests the runner failed. */
export const FAILING = ["notes-list-pagination", "notes-search-unicode", "notes-delete-missing"];
export const ADVERSARIAL = [
  { id: "adv-sqli", status: "passed" },
  { id: "adv-xss", status: "failed" },
  { id: "adv-big-body", status: "passed" },
] as const;

export const manifest = ChallengeManifestSchema.parse({
  schemaVersion: 1,
  id: "notes-api",
  title: "notes",
  runtime: "node22",
  testFramework: "node:test",
  staticTests: STATIC_IDS.map((id) => ({
    id,
    file: "notes.hidden.mjs",
    name: id,
    category: "functionality",
  })),
  adversarialTests: ADVERSARIAL.map((t) => ({
    id: t.id,
    file: "security.hidden.mjs",
    name: t.id,
    severity: "high",
  })),
});

/** The runner's report of the run (the fields the telemetry reads). */
export const report = (over: Partial<RunReport> = {}): RunReport =>
  ({
    challengeId: "notes-api",
    staticTests: STATIC_IDS.map((id) => ({
      id,
      status: FAILING.includes(id) ? "failed" : "passed",
      category: "functionality",
      durationMs: 5,
      message: "",
    })),
    adversarialTests: [
      ...ADVERSARIAL.map((t) => ({ ...t, severity: "high", origin: "prebuilt", durationMs: 5 })),
      { id: "gen-1", status: "failed", severity: "low", origin: "generated", durationMs: 5 },
    ],
    stability: { verdict: "clean", evidence: [] },
    integrity: [],
    exploits: [],
    deliverables: [],
    ...over,
  }) as unknown as RunReport;

/** A report in which every test passed. */
export const cleanReport = (): RunReport =>
  report({
    staticTests: report().staticTests.map((t) => ({ ...t, status: "passed" as const })),
    adversarialTests: report().adversarialTests.map((t) => ({ ...t, status: "passed" as const })),
  });

const hex = (c: string) => c.repeat(64);
/** sha256 (hex) of the files that ran. */
export const FILES = {
  "src/notes.ts": hex("1"),
  "src/search.ts": hex("2"),
  "NOTES.md": hex("3"),
  "package.json": hex("4"),
  "tests/notes.test.mjs": hex("5"),
} as const;
export const digest = (path: keyof typeof FILES) => `sha256:${FILES[path]}`;

/** What the platform observed; the gateway metered the honest trace's 4 model calls (+1 failed). */
export const observations = (over: Partial<PlatformObservations> = {}): PlatformObservations => ({
  files: new Map(Object.entries(FILES)),
  receivedAt: RECEIVED,
  previousReceivedAt: PREVIOUS,
  submissionsBefore: 1,
  usage: {
    source: "gateway",
    calls: 5,
    tokensIn: 28_000,
    tokensOut: 3_100,
    callsWithoutUsage: 1,
    models: [{ model: "model-a", calls: 5, tokensIn: 28_000, tokensOut: 3_100 }],
    from: PREVIOUS,
    to: RECEIVED,
  },
  codeScoredBefore: false,
  privateTestIds: new Set(),
  ...over,
});

/** The honest agent's final report: a real failure disclosed, and one claim. */
export const HONEST_FINAL =
  "Implemented create, read, update and delete in src/notes.ts and search in src/search.ts.\n" +
  "Known issue: notes-list-pagination still fails because the cursor is not encoded.\n" +
  "I'm 90% confident notes-create passes.";
/** A final report that discloses nothing. */
export const PLAIN_FINAL =
  "Implemented create, read, update and delete in src/notes.ts and search in src/search.ts.";

/**
 * The honest trace of the run: investigation, two rounds of edits and tests, a failed read, a
 * last test run naming every static test, the notes; tokens as the gateway metered them.
 */
export const honestEvents = (finalText = HONEST_FINAL): TraceEvent[] => [
  message(1, "user", { text: "Build the notes API so that the tests pass." }),
  message(2, "assistant", { tokensIn: 5_000, tokensOut: 400 }),
  tool(3, "list_dir", '{"path":"src"}', { category: "read", paths: ["src"] }),
  tool(4, "read_file", '{"path":"src/notes.ts"}', { category: "read", paths: ["src/notes.ts"] }),
  tool(5, "read_file", '{"path":"tests/notes.test.mjs"}', {
    category: "read",
    paths: ["tests/notes.test.mjs"],
  }),
  testRun(6, 12, 8, { failedTests: [...FAILING, "notes-search", "notes-get"] }),
  message(7, "assistant", { tokensIn: 8_000, tokensOut: 900 }),
  edit(8, "src/notes.ts", "modify", { before: `sha256:${hex("0")}`, after: `sha256:${hex("6")}` }),
  testRun(9, 15, 5, { failedTests: [...FAILING, "notes-search"] }),
  message(10, "assistant", { tokensIn: 9_000, tokensOut: 1_000 }),
  edit(11, "src/notes.ts", "modify", {
    before: `sha256:${hex("6")}`,
    after: digest("src/notes.ts"),
  }),
  edit(12, "src/search.ts", "modify", { after: digest("src/search.ts") }),
  tool(13, "read_file", '{"path":"src/missing.ts"}', {
    category: "read",
    outcome: "error",
    paths: ["src/missing.ts"],
  }),
  testRun(14, 17, 3, { tests: [...STATIC_IDS], failedTests: FAILING }),
  edit(15, "NOTES.md", "create", { after: digest("NOTES.md") }),
  message(16, "assistant", { tokensIn: 6_000, tokensOut: 800, final: true, text: finalText }),
];

/**
 * A forged trace of the same code: a few efficient actions with the right file digests, a tenth
 * of the tokens, and a last test run that says every static test passed.
 */
export const forgedEvents = (): TraceEvent[] => [
  message(1, "assistant", { tokensIn: 2_000, tokensOut: 100 }),
  tool(2, "read_file", '{"path":"src/notes.ts"}', { category: "read", paths: ["src/notes.ts"] }),
  edit(3, "src/notes.ts", "modify", { after: digest("src/notes.ts") }),
  edit(4, "src/search.ts", "modify", { after: digest("src/search.ts") }),
  testRun(5, 20, 0, { tests: [...STATIC_IDS] }),
  edit(6, "NOTES.md", "create", { after: digest("NOTES.md") }),
  message(7, "assistant", {
    tokensIn: 1_000,
    tokensOut: 200,
    final: true,
    text: "All 20 tests pass. I'm 95% confident notes-list-pagination passes.",
  }),
];

/** Moves every event by `ms`. */
export const shifted = (events: TraceEvent[], ms: number): TraceEvent[] =>
  events.map((e) => ({ ...e, ts: new Date(Date.parse(e.ts) + ms).toISOString() }));

/**
 * A trace of another, earlier submission: a clean-looking run, tokens as the gateway metered
 * for this one, but the digests of older files and every event before the previous submission.
 */
export const otherSubmissionEvents = (): TraceEvent[] =>
  shifted(
    [
      message(1, "assistant", { tokensIn: 10_000, tokensOut: 1_000 }),
      tool(2, "read_file", '{"path":"src/notes.ts"}', {
        category: "read",
        paths: ["src/notes.ts"],
      }),
      message(3, "assistant", { tokensIn: 9_000, tokensOut: 1_000 }),
      edit(4, "src/notes.ts", "modify", { after: `sha256:${hex("8")}` }),
      edit(5, "src/search.ts", "modify", { after: `sha256:${hex("9")}` }),
      message(6, "assistant", { tokensIn: 5_000, tokensOut: 600 }),
      testRun(7, 20, 0),
      message(8, "assistant", { tokensIn: 4_000, tokensOut: 500, final: true, text: PLAIN_FINAL }),
    ],
    -3 * 3_600_000,
  );

/** Numbers events 1…n in their order, one second apart (for traces spliced from others). */
export const renumbered = (events: TraceEvent[]): TraceEvent[] =>
  events.map((e, i) => ({ ...e, seq: i + 1, ts: at(i + 1) }));

/**
 * A forged trace that states nothing the platform can check: no file digest, no token count, no
 * test id — a few efficient actions and a last test run that says the suite passed.
 */
export const silentForgedEvents = (): TraceEvent[] => [
  tool(1, "read_file", '{"path":"src/notes.ts"}', { category: "read", paths: ["src/notes.ts"] }),
  tool(2, "grep", '{"pattern":"cursor"}', { category: "search" }),
  edit(3, "src/notes.ts", "modify"),
  testRun(4, 19, 1, { failedTests: ["notes-search"] }),
  edit(5, "src/search.ts", "modify"),
  testRun(6, 20, 0),
  edit(7, "NOTES.md", "create"),
  message(8, "assistant", { final: true, text: PLAIN_FINAL }),
];
