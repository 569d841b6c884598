/**
 * @module telemetry/cross-check
 * A trace checked against what the platform itself observed (docs/telemetry.md, "Cross-checks
 * against the platform"): the trace's final file digests against the files that ran, its times
 * against the platform's receipts, its tokens against the metering gateway, its last test run
 * against the runner, its submissions against the platform's records. Invariants: a check
 * contradicts only on a clear disagreement with a platform record, and says both numbers;
 * anything the trace does not state, or states in a form the platform cannot compare, is
 * "not comparable", never a contradiction; reporting more than the platform saw (tokens, calls)
 * is never a contradiction; deterministic (checks in the order files, times, usage, tests,
 * submissions). Pure: no I/O, no clock (every time is read from the trace or the observations).
 */
import { TRUST_CAPS, type ComponentTrust } from "@bouts/scoring";
import type { PlatformObservations } from "./observations.ts";
import { clip, normalizePath, quote } from "./text.ts";
import type { EditEvent, TestRunEvent, ToolCallEvent, Trace } from "./trace.ts";
import { extractUsage } from "./usage.ts";

/** How far a trace's clock may run ahead of (or behind) the platform's: 5 minutes. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * The share of the gateway's tokens and calls a trace must report (90 %): less is a
 * contradiction; more is not (calls outside the gateway are allowed).
 */
export const USAGE_FLOOR = { numerator: 9, denominator: 10 } as const;

/** Runner statuses the test check compares: the verdicts of a test's own assertions. */
const COMPARED_STATUSES: Readonly<Record<string, "passed" | "failed">> = {
  passed: "passed",
  failed: "failed",
};

/** Notes and prose: an edit of one after the last test run does not change a test's outcome. */
const PROSE_FILE = /\.(?:md|markdown|txt|rst|adoc)$/i;

/** A content digest the platform can compare: `sha256:` and 64 hex digits, any case. */
const SHA256_DIGEST = /^sha256:([0-9a-f]{64})$/i;

/** The name of one cross-check. */
export type CrossCheckName = "files" | "times" | "usage" | "tests" | "submissions";

/** One comparison of the trace with a platform record, with both numbers. */
export interface CheckResult {
  check: CrossCheckName;
  outcome: "match" | "contradiction" | "not-comparable";
  /** One line with the numbers; agent-written paths and ids are JSON-quoted. */
  detail: string;
  /** The trace event compared, when one is. */
  seq?: number;
  /** The trace's path (files check). */
  path?: string;
  /** What the trace says, as compared (a digest, a count, a time). */
  trace?: string | number | null;
  /** What the platform recorded, as compared. */
  platform?: string | number | null;
}

/** A check the trace failed. */
export type Contradiction = CheckResult & { outcome: "contradiction" };

/** Every check, the contradictions among them, and whether the trace is anchored. */
export interface TraceCrossCheck {
  checks: CheckResult[];
  contradictions: Contradiction[];
  /**
   * At least one of the trace's final file digests matched a file that ran, and none
   * contradicted one: the trace describes this submission's code.
   */
  anchored: boolean;
  /** File digests that matched the archive. */
  digestsMatched: number;
  /** The gateway's tokens (in + out), or null when the platform metered none. */
  observedTokens: number | null;
}

/** The runner's results the checks read (a `RunReport` fits). */
export interface RunnerResults {
  /** The challenge's id (a submission to another challenge is not counted). */
  challengeId?: string;
  staticTests: readonly { id: string; status: string }[];
  adversarialTests: readonly { id: string; status: string; origin?: string }[];
}

const iso = (ms: number): string => (Number.isFinite(ms) ? new Date(ms).toISOString() : "?");
const shortDigest = (hex: string): string => `sha256:${hex.slice(0, 12)}…`;
const fmt = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, " ");

function result(
  check: CrossCheckName,
  outcome: CheckResult["outcome"],
  detail: string,
  extra: Omit<CheckResult, "check" | "outcome" | "detail"> = {},
): CheckResult {
  return { check, outcome, detail, ...extra };
}

// ─── Files ───

/**
 * The archive path a trace path names: the same path, or, when the trace's path has one leading
 * folder `F` that the archive does not have (no archive path starts with `F/`), the path without
 * it (`repo/src/x.ts` → `src/x.ts`). Otherwise null: not in the archive.
 */
export function resolveArchivePath(
  tracePath: string,
  files: ReadonlyMap<string, string>,
): string | null {
  const p = normalizePath(tracePath);
  if (files.has(p)) return p;
  const cut = p.indexOf("/");
  if (cut <= 0) return null;
  const folder = p.slice(0, cut);
  const rest = p.slice(cut + 1);
  if (folder === "." || folder === ".." || !files.has(rest)) return null;
  for (const k of files.keys()) if (k.startsWith(`${folder}/`)) return null;
  return rest;
}

interface LastEdit {
  edit: EditEvent;
  /** A later tool call that may have changed the file (not a read or a search). */
  touchedBy: ToolCallEvent | null;
}

function checkFiles(
  trace: Trace,
  files: ReadonlyMap<string, string> | null,
): { checks: CheckResult[]; digestsMatched: number } {
  const last = new Map<string, LastEdit>();
  for (const e of trace.events) {
    if (e.type === "edit") last.set(normalizePath(e.path), { edit: e, touchedBy: null });
    else if (e.type === "tool_call" && e.category !== "read" && e.category !== "search")
      for (const raw of e.paths ?? []) {
        const seen = last.get(normalizePath(raw));
        if (seen) seen.touchedBy = e;
      }
  }
  if (last.size === 0)
    return {
      checks: [result("files", "not-comparable", "the trace edits no file")],
      digestsMatched: 0,
    };
  if (files === null)
    return {
      checks: [
        result(
          "files",
          "not-comparable",
          `the platform has no digests of the files that ran (${last.size} edited paths unchecked)`,
        ),
      ],
      digestsMatched: 0,
    };
  const checks: CheckResult[] = [];
  let digestsMatched = 0;
  for (const [path, { edit, touchedBy }] of last) {
    const q = quote(path, 160);
    const at = { seq: edit.seq, path };
    const archived = resolveArchivePath(path, files);
    const platform = archived === null ? null : (files.get(archived) ?? null);
    if (touchedBy !== null) {
      checks.push(
        result(
          "files",
          "not-comparable",
          `${q}: last edited at seq ${edit.seq}, then touched by tool ${quote(touchedBy.name, 60)} at seq ${touchedBy.seq}; its final content is not in the trace`,
          at,
        ),
      );
      continue;
    }
    if (edit.kind === "delete") {
      checks.push(
        platform === null
          ? result("files", "match", `${q}: deleted at seq ${edit.seq} and not in the archive`, {
              ...at,
              trace: null,
              platform: null,
            })
          : result(
              "files",
              "contradiction",
              `${q}: the trace deletes it at seq ${edit.seq}, but the archive that ran has it (${shortDigest(platform)})`,
              { ...at, trace: null, platform: `sha256:${platform}` },
            ),
      );
      continue;
    }
    if (platform === null) {
      checks.push(
        result(
          "files",
          "not-comparable",
          `${q}: not in the archive (a scratch file, or one left out)`,
          at,
        ),
      );
      continue;
    }
    const digest = typeof edit.after === "string" ? SHA256_DIGEST.exec(edit.after.trim()) : null;
    if (!digest?.[1]) {
      checks.push(
        result(
          "files",
          "not-comparable",
          `${q}: the trace's final digest ${edit.after == null ? "is missing" : `${quote(edit.after, 40)} is not sha256:<64 hex>`} (seq ${edit.seq})`,
          at,
        ),
      );
      continue;
    }
    const claimed = digest[1].toLowerCase();
    const observed = platform.toLowerCase();
    if (claimed === observed) {
      digestsMatched++;
      checks.push(
        result(
          "files",
          "match",
          `${q}: the trace's final digest (seq ${edit.seq}) is the file that ran (${shortDigest(observed)})`,
          { ...at, trace: `sha256:${claimed}`, platform: `sha256:${observed}` },
        ),
      );
    } else
      checks.push(
        result(
          "files",
          "contradiction",
          `${q}: the trace's final digest ${shortDigest(claimed)} (seq ${edit.seq}) is not the file that ran (${shortDigest(observed)})`,
          { ...at, trace: `sha256:${claimed}`, platform: `sha256:${observed}` },
        ),
      );
  }
  return { checks, digestsMatched };
}

// ─── Times ───

function checkTimes(trace: Trace, o: PlatformObservations): CheckResult[] {
  const checks: CheckResult[] = [];
  const latestAllowed = o.receivedAt + CLOCK_SKEW_MS;
  const started = trace.header.startedAt ? Date.parse(trace.header.startedAt) : null;
  if (started !== null && started > latestAllowed)
    checks.push(
      result(
        "times",
        "contradiction",
        `the trace starts at ${iso(started)}, after the platform received it (${iso(o.receivedAt)}, ${CLOCK_SKEW_MS / 60_000} min allowed)`,
        { trace: iso(started), platform: iso(o.receivedAt) },
      ),
    );
  if (trace.events.length === 0) {
    if (checks.length === 0)
      checks.push(result("times", "not-comparable", "the trace has no event"));
    return checks;
  }
  const late = trace.events.filter((e) => Date.parse(e.ts) > latestAllowed);
  const first = late[0];
  if (first !== undefined)
    checks.push(
      result(
        "times",
        "contradiction",
        `${late.length} event(s) dated after the platform received the submission (${iso(o.receivedAt)}, ${CLOCK_SKEW_MS / 60_000} min allowed): first seq ${first.seq} at ${iso(Date.parse(first.ts))}`,
        { seq: first.seq, trace: iso(Date.parse(first.ts)), platform: iso(o.receivedAt) },
      ),
    );
  let lastMs = -Infinity;
  let lastSeq = 0;
  let firstMs = Infinity;
  for (const e of trace.events) {
    const t = Date.parse(e.ts);
    if (t >= lastMs) {
      lastMs = t;
      lastSeq = e.seq;
    }
    firstMs = Math.min(firstMs, t);
  }
  if (o.previousReceivedAt !== null && lastMs < o.previousReceivedAt - CLOCK_SKEW_MS)
    checks.push(
      result(
        "times",
        "contradiction",
        `the trace ends (seq ${lastSeq} at ${iso(lastMs)}) before the agent's previous submission was received (${iso(o.previousReceivedAt)}): a trace of another submission`,
        { seq: lastSeq, trace: iso(lastMs), platform: iso(o.previousReceivedAt) },
      ),
    );
  if (checks.length === 0)
    checks.push(
      result(
        "times",
        "match",
        `${trace.events.length} events from ${iso(firstMs)} to ${iso(lastMs)}, received ${iso(o.receivedAt)}${o.previousReceivedAt !== null ? `, ending after the previous submission was received (${iso(o.previousReceivedAt)})` : ""}`,
        { trace: iso(lastMs), platform: iso(o.receivedAt) },
      ),
    );
  return checks;
}

// ─── Usage ───

const below = (reported: number, observed: number): boolean =>
  reported * USAGE_FLOOR.denominator < observed * USAGE_FLOOR.numerator;

function checkUsage(trace: Trace, o: PlatformObservations): CheckResult[] {
  const u = o.usage;
  if (u === null)
    return [result("usage", "not-comparable", "the platform's gateway metered no model calls")];
  const observedTokens = u.tokensIn + u.tokensOut;
  // Calls whose response carried no usage cannot appear in a trace with tokens either.
  const observedCalls = Math.max(0, u.calls - u.callsWithoutUsage);
  const tokens = extractUsage(trace).tokens;
  if (tokens === null)
    return [
      result(
        "usage",
        "not-comparable",
        `the trace reports no tokens; the gateway's ${fmt(observedTokens)} tokens in ${fmt(observedCalls)} calls are used`,
        { trace: null, platform: observedTokens },
      ),
    ];
  const reported = tokens.tokensIn + tokens.tokensOut;
  const checks: CheckResult[] = [];
  const pct = `${(USAGE_FLOOR.numerator / USAGE_FLOOR.denominator) * 100} %`;
  if (below(reported, observedTokens))
    checks.push(
      result(
        "usage",
        "contradiction",
        `the trace reports ${fmt(reported)} tokens, below ${pct} of the ${fmt(observedTokens)} the gateway metered (${u.source})`,
        { trace: reported, platform: observedTokens },
      ),
    );
  if (below(tokens.events, observedCalls))
    checks.push(
      result(
        "usage",
        "contradiction",
        `the trace reports ${fmt(tokens.events)} model calls, below ${pct} of the ${fmt(observedCalls)} the gateway metered with usage (${u.source})`,
        { trace: tokens.events, platform: observedCalls },
      ),
    );
  if (checks.length === 0)
    checks.push(
      result(
        "usage",
        "match",
        `the trace reports ${fmt(reported)} tokens in ${fmt(tokens.events)} calls; the gateway metered ${fmt(observedTokens)} in ${fmt(observedCalls)}`,
        { trace: reported, platform: observedTokens },
      ),
    );
  return checks;
}

// ─── Tests ───

function checkTests(
  trace: Trace,
  report: RunnerResults,
  privateIds: ReadonlySet<string>,
): CheckResult[] {
  let last: TestRunEvent | undefined;
  let lastIndex = -1;
  trace.events.forEach((e, i) => {
    if (e.type === "test_run") {
      last = e;
      lastIndex = i;
    }
  });
  if (last === undefined) return [result("tests", "not-comparable", "the trace runs no test")];
  const run: TestRunEvent = last;
  const laterEdit = trace.events
    .slice(lastIndex + 1)
    .find((e): e is EditEvent => e.type === "edit" && !PROSE_FILE.test(e.path));
  if (laterEdit !== undefined)
    return [
      result(
        "tests",
        "not-comparable",
        `the last test run (seq ${run.seq}) is followed by an edit (seq ${laterEdit.seq}): it did not test the code that ran`,
        { seq: run.seq },
      ),
    ];
  const runner = new Map<string, string>();
  for (const t of report.staticTests) if (!runner.has(t.id)) runner.set(t.id, t.status);
  for (const t of report.adversarialTests)
    if (t.origin !== "generated" && !runner.has(t.id)) runner.set(t.id, t.status);
  const failed = new Set(run.failedTests ?? []);
  const named = [...new Set([...(run.tests ?? []), ...(run.failedTests ?? [])])];
  const agree: string[] = [];
  const disagree: { id: string; trace: string; runner: string }[] = [];
  for (const id of named) {
    const status = runner.get(id);
    if (status === undefined || privateIds.has(id)) continue;
    const said = failed.has(id)
      ? "failed"
      : run.outcome === "ok" && (run.tests ?? []).includes(id)
        ? "passed"
        : null;
    const saw = COMPARED_STATUSES[status] ?? null;
    if (said === null || saw === null) continue;
    if (said === saw) agree.push(id);
    else disagree.push({ id, trace: said, runner: status });
  }
  if (disagree.length > 0) {
    const list = clip(
      disagree
        .map((d) => `${JSON.stringify(d.id)} ${d.trace} in the trace, ${d.runner} in the runner`)
        .join(", "),
      360,
    );
    return [
      result(
        "tests",
        "contradiction",
        `the last test run (seq ${run.seq}) disagrees with the runner on ${disagree.length} of ${disagree.length + agree.length} tests: ${list}`,
        { seq: run.seq, trace: disagree.length, platform: disagree.length + agree.length },
      ),
    ];
  }
  if (agree.length === 0)
    return [
      result(
        "tests",
        "not-comparable",
        `the last test run (seq ${run.seq}) names no public test of the suite with an outcome to compare`,
        { seq: run.seq },
      ),
    ];
  return [
    result(
      "tests",
      "match",
      `the last test run (seq ${run.seq}) agrees with the runner on ${agree.length} tests`,
      { seq: run.seq, trace: agree.length, platform: agree.length },
    ),
  ];
}

// ─── Submissions ───

/** The platform's MCP tool `submit_solution`, under any client's server prefix. */
const SUBMIT_TOOL = /(?:^|[^A-Za-z0-9])submit_solution$/i;
/** The CLI: `bouts submit`, `npx bouts submit`, `npm run bouts -- submit`. */
const SUBMIT_COMMAND = /(?:^|[\s;&|("'`])bouts(?:\s+--)?\s+submit\b/;
/** The API: a POST (or a multipart form) to `/challenges/{id}/submissions`. */
const SUBMIT_PATH = /\/challenges\/[^/\s"'?#]+\/submissions(?![\w/-])/;
const POST = /\bPOST\b|"method"\s*:\s*"[Pp][Oo][Ss][Tt]"|(?:^|\s)(?:-F|--form)\s/;

/**
 * True when a tool call submitted to Bouts: the MCP tool `submit_solution` (any prefix), or
 * arguments that run `bouts submit` or POST to `/challenges/{id}/submissions`.
 */
export function isSubmitCall(t: ToolCallEvent): boolean {
  const args = t.args ?? "";
  return (
    SUBMIT_TOOL.test(t.name) ||
    SUBMIT_COMMAND.test(args) ||
    (SUBMIT_PATH.test(args) && POST.test(args))
  );
}

function checkSubmissions(
  trace: Trace,
  o: PlatformObservations,
  challengeId: string | undefined,
): CheckResult[] {
  const submits = trace.events.filter(
    (e): e is ToolCallEvent =>
      e.type === "tool_call" &&
      e.outcome === "ok" &&
      isSubmitCall(e) &&
      // Arguments that name another challenge submitted elsewhere; without arguments, here.
      (challengeId === undefined || e.args === undefined || e.args.includes(challengeId)),
  );
  const allowed = o.submissionsBefore + 1;
  const seqs = clip(submits.map((s) => s.seq).join(", "), 120);
  if (submits.length > allowed)
    return [
      result(
        "submissions",
        "contradiction",
        `the trace shows ${submits.length} successful submissions (seq ${seqs}); the platform recorded ${o.submissionsBefore} before this one (at most ${allowed} with it)`,
        { seq: submits[0]?.seq, trace: submits.length, platform: allowed },
      ),
    ];
  return [
    result(
      "submissions",
      "match",
      `the trace shows ${submits.length} successful submission(s)${submits.length > 0 ? ` (seq ${seqs})` : ""}; the platform recorded ${o.submissionsBefore} before this one`,
      { trace: submits.length, platform: allowed },
    ),
  ];
}

// ─── Assembly ───

/**
 * Checks a trace against what the platform observed of the submission: files, times, usage,
 * the last test run and the submissions. Each mismatch is a contradiction with both numbers.
 * @example
 * const x = crossCheckTrace(trace, observations, report);
 * x.contradictions.map((c) => c.detail);
 * // ['"src/notes.ts": the trace\'s final digest sha256:ab12… (seq 9) is not the file that ran (sha256:9f3c…)']
 */
export function crossCheckTrace(
  trace: Trace,
  observations: PlatformObservations,
  report: RunnerResults,
): TraceCrossCheck {
  const files = checkFiles(trace, observations.files);
  const checks = [
    ...files.checks,
    ...checkTimes(trace, observations),
    ...checkUsage(trace, observations),
    ...checkTests(trace, report, observations.privateTestIds),
    ...checkSubmissions(trace, observations, report.challengeId),
  ];
  const contradictions = checks.filter((c): c is Contradiction => c.outcome === "contradiction");
  const fileContradiction = contradictions.some((c) => c.check === "files");
  const u = observations.usage;
  return {
    checks,
    contradictions,
    anchored: files.digestsMatched > 0 && !fileContradiction,
    digestsMatched: files.digestsMatched,
    observedTokens: u === null ? null : u.tokensIn + u.tokensOut,
  };
}

/** Joins parts with "; ", cut at `max` characters with "…" (the evidence citation bound). */
export function joinBounded(parts: readonly string[], max = 500): string {
  const joined = parts.join("; ");
  return joined.length > max ? `${joined.slice(0, max - 1)}…` : joined;
}

/**
 * How far the platform vouches for the components that rest on the trace (process, strategy,
 * recovery, efficiency): contradicted → self-reported, capped at `TRUST_CAPS.contradicted`;
 * anchored and uncontradicted → cross-checked, uncapped; otherwise self-reported, capped at
 * `TRUST_CAPS.unchecked`.
 */
export function assessTraceTrust(x: TraceCrossCheck): ComponentTrust {
  if (x.contradictions.length > 0)
    return {
      provenance: "self-reported",
      cap: TRUST_CAPS.contradicted,
      basis: joinBounded([
        `the platform's records contradict the trace (${x.contradictions.length})`,
        ...x.contradictions.map((c) => c.detail),
      ]),
    };
  const matched = x.checks.filter((c) => c.outcome === "match");
  if (x.anchored)
    return {
      provenance: "cross-checked",
      cap: null,
      basis: joinBounded([
        `cross-checked: ${x.digestsMatched} file digest(s) match the archive`,
        ...matched.filter((c) => c.check !== "files").map((c) => c.detail),
      ]),
    };
  return {
    provenance: "self-reported",
    cap: TRUST_CAPS.unchecked,
    basis: joinBounded([
      "the trace names no file digest the platform could compare (an edit's final `after` digest, sha256:<64 hex>, of a file in the archive)",
      ...matched.map((c) => c.detail),
    ]),
  };
}
