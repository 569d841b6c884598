/**
 * @module telemetry/calibration
 * Calibration input (docs/design.md §9): confidence statements parsed from deliverable text or
 * carried by a trace, and their resolution against test outcomes into the engine's
 * `CalibrationClaimInput[]`. Invariants: structured claims win — when the submission has
 * any, parsed ones are ignored; a claim naming a test that did not run is left unresolved
 * (reported, never guessed); with the platform's visibility facts, a claim whose outcome the
 * agent could have read before it claimed (public tests of code scored before) is left out as
 * `outcome-visible`; only status "passed" counts as passing; deterministic. Pure.
 */
import { ConfidenceClaimSchema, type ConfidenceClaim } from "@bouts/contracts";
import type { CalibrationClaimInput } from "@bouts/scoring";
import { clip, findMentionedIds, splitSentences } from "./text.ts";
import type { Trace } from "./trace.ts";

/** Options of {@link extractConfidenceStatements}. */
export interface ExtractClaimsOptions {
  /** Known test ids; a statement that mentions one names it in `tests`. */
  testIds?: readonly string[];
  /** Prefix of generated claim ids (default "parsed"). */
  idPrefix?: string;
}

const HEDGE =
  /\b(?:I(?:'m|’m| am)\s+|we(?:'re|’re| are)\s+)?not\s+(?:(?:entirely|completely|totally|fully|100\s*%)\s+)?(?:sure|certain|confident)\b|\bI(?:'m|’m| am)\s+(?:unsure|uncertain)\b|\bconfidence(?:\s+level)?\s*[:=]\s*(?:low|uncertain)\b/i;
const PERCENT_CONFIDENT =
  /\b(\d{1,3}(?:\.\d+)?)\s*%\s+(?:confident|sure|certain)\b|\bwith\s+(\d{1,3}(?:\.\d+)?)\s*%\s+confidence\b/i;
const CONFIDENCE_PERCENT =
  /\bconfidence(?:\s+level)?\s*(?:[:=]|of|is|at)\s*(\d{1,3}(?:\.\d+)?)\s*%/i;
const CONFIDENCE_FRACTION =
  /\bconfidence(?:\s+level)?\s*(?:[:=]|of|is|at)\s*((?:0?\.\d+|0|1)(?:\.0+)?)(?![\d.%])/i;

/** The confidence a sentence states, or null when it states none. */
export function resolveStatedConfidence(sentence: string): number | "uncertain" | null {
  if (HEDGE.test(sentence)) return "uncertain";
  const pct = PERCENT_CONFIDENT.exec(sentence) ?? CONFIDENCE_PERCENT.exec(sentence);
  if (pct) {
    const n = Number(pct[1] ?? pct[2]);
    return n >= 0 && n <= 100 ? n / 100 : null;
  }
  const frac = CONFIDENCE_FRACTION.exec(sentence);
  if (frac) {
    const n = Number(frac[1]);
    return n >= 0 && n <= 1 ? n : null;
  }
  return null;
}

/**
 * Parses confidence statements from free text into claims: "I'm 90% confident…", "with 75%
 * confidence", "confidence: 0.7", "Confidence: 80%" give a number; "I'm not sure…", "not
 * entirely certain", "confidence: low" give "uncertain". One claim per sentence, ids
 * `parsed-1`, `parsed-2`… in text order.
 * @example
 * extractConfidenceStatements("I'm 90% confident the parser is fixed.")
 * // [{ id: "parsed-1", statement: "I'm 90% confident the parser is fixed.", confidence: 0.9 }]
 */
export function extractConfidenceStatements(
  text: string,
  options: ExtractClaimsOptions = {},
): ConfidenceClaim[] {
  const prefix = options.idPrefix ?? "parsed";
  const claims: ConfidenceClaim[] = [];
  for (const sentence of splitSentences(text)) {
    const confidence = resolveStatedConfidence(sentence);
    if (confidence === null) continue;
    const tests = findMentionedIds(sentence, options.testIds ?? []);
    claims.push({
      id: `${prefix}-${claims.length + 1}`,
      statement: clip(sentence, 1000),
      confidence,
      ...(tests.length > 0 ? { tests } : {}),
    });
  }
  return claims;
}

/**
 * Claims carried by a trace: each message's structured `confidence` entries, then statements
 * parsed from final-report text. Ids are `trace-<seq>-<n>`.
 */
export function extractTraceClaims(
  trace: Trace,
  options: Omit<ExtractClaimsOptions, "idPrefix"> = {},
): ConfidenceClaim[] {
  const claims: ConfidenceClaim[] = [];
  for (const e of trace.events) {
    if (e.type !== "message" || e.role !== "assistant") continue;
    const own = (e.confidence ?? []).map((c, i) => ({ ...c, id: `trace-${e.seq}-${i + 1}` }));
    const parsed =
      e.final === true && e.text !== undefined && own.length === 0
        ? extractConfidenceStatements(e.text, { ...options, idPrefix: `trace-${e.seq}` })
        : [];
    claims.push(...own, ...parsed);
  }
  return claims;
}

/** A test's outcome as the runner reports it; only "passed" passes. */
export interface TestOutcomeLike {
  id: string;
  status: string;
}

/** The outcomes claims are resolved against (RunReport's staticTests / adversarialTests fit). */
export interface TestOutcomes {
  static: readonly TestOutcomeLike[];
  adversarial?: readonly TestOutcomeLike[];
}

/** The claims to resolve. Structured claims win: when present, parsed ones are ignored. */
export interface ClaimSources {
  structured?: readonly ConfidenceClaim[];
  parsed?: readonly ConfidenceClaim[];
}

/** A claim that could not be decided, and why. */
export interface UnresolvedClaim {
  id: string;
  reason: "invalid-claim" | "duplicate-id" | "unknown-test" | "no-static-tests" | "outcome-visible";
  detail: string;
}

/** Resolved claims for the engine, the ones left out, and which source was used. */
export interface ResolvedClaims {
  source: "structured" | "parsed" | "none";
  claims: CalibrationClaimInput[];
  unresolved: UnresolvedClaim[];
}

/**
 * What the agent could have seen of the outcomes before it claimed (from the platform's
 * observations): whether identical code was scored on the challenge before, and the tests no
 * public report ever shows.
 */
export interface OutcomeVisibility {
  codeScoredBefore: boolean;
  privateTestIds: ReadonlySet<string>;
}

/** Options of {@link resolveClaims}. */
export interface ResolveClaimsOptions {
  /**
   * With it, only claims about outcomes the agent could not have seen count: a claim naming
   * tests iff every one is private or the code was not scored before; a claim naming none iff
   * the code was not scored before. Others are unresolved, `outcome-visible`.
   */
  visibility?: OutcomeVisibility;
}

/**
 * Decides each claim right or wrong: against the tests it names (right iff every one
 * passed), or, naming none, against the whole static suite passing. Produces the engine's
 * `CalibrationClaimInput[]` with a `basis` citing the outcomes.
 * @example
 * resolveClaims({ structured: [{ id: "c1", statement: "auth fixed", confidence: 0.9, tests: ["auth"] }] },
 *   { static: [{ id: "auth", status: "passed" }] })
 * // { source: "structured", claims: [{ id: "c1", confidence: 0.9, correct: true, basis: "auth: passed" }], unresolved: [] }
 */
export function resolveClaims(
  sources: ClaimSources,
  outcomes: TestOutcomes,
  options: ResolveClaimsOptions = {},
): ResolvedClaims {
  const visibility = options.visibility;
  const structured = sources.structured ?? [];
  const parsed = sources.parsed ?? [];
  const source = structured.length > 0 ? "structured" : parsed.length > 0 ? "parsed" : "none";
  const list = source === "structured" ? structured : parsed;

  const byId = new Map<string, string>();
  for (const t of [...outcomes.static, ...(outcomes.adversarial ?? [])])
    if (!byId.has(t.id)) byId.set(t.id, t.status);
  const staticPassed = outcomes.static.filter((t) => t.status === "passed").length;

  const claims: CalibrationClaimInput[] = [];
  const unresolved: UnresolvedClaim[] = [];
  const seen = new Set<string>();
  for (const raw of list) {
    const checked = ConfidenceClaimSchema.safeParse(raw);
    const id = typeof raw?.id === "string" ? clip(raw.id, 200) : "(no id)";
    if (!checked.success) {
      const issue = checked.error.issues[0];
      unresolved.push({
        id,
        reason: "invalid-claim",
        detail: `${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`,
      });
      continue;
    }
    const c = checked.data;
    if (seen.has(c.id)) {
      unresolved.push({ id: c.id, reason: "duplicate-id", detail: "an earlier claim has this id" });
      continue;
    }
    seen.add(c.id);
    const tests = c.tests ?? [];
    if (tests.length > 0) {
      const unknown = tests.filter((t) => !byId.has(t));
      if (unknown.length > 0) {
        unresolved.push({
          id: c.id,
          reason: "unknown-test",
          detail: `names tests that did not run: ${clip(unknown.join(", "), 200)}`,
        });
        continue;
      }
      const visible = visibility?.codeScoredBefore
        ? tests.filter((t) => !visibility.privateTestIds.has(t))
        : [];
      if (visible.length > 0) {
        unresolved.push({
          id: c.id,
          reason: "outcome-visible",
          detail: `identical code was scored before, and the public report showed ${clip(visible.join(", "), 200)}`,
        });
        continue;
      }
      const statuses = tests.map((t) => `${t}: ${byId.get(t) ?? ""}`);
      claims.push({
        id: c.id,
        confidence: c.confidence,
        correct: tests.every((t) => byId.get(t) === "passed"),
        basis: clip(statuses.join(", "), 300),
      });
      continue;
    }
    if (visibility?.codeScoredBefore) {
      unresolved.push({
        id: c.id,
        reason: "outcome-visible",
        detail:
          "names no tests, and identical code was scored before: its public report showed the outcome",
      });
      continue;
    }
    if (outcomes.static.length === 0) {
      unresolved.push({
        id: c.id,
        reason: "no-static-tests",
        detail: "names no tests and there is no static suite to judge it by",
      });
      continue;
    }
    claims.push({
      id: c.id,
      confidence: c.confidence,
      correct: staticPassed === outcomes.static.length,
      basis: `static suite: ${staticPassed}/${outcomes.static.length} passed`,
    });
  }
  return { source, claims, unresolved };
}
