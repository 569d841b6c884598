/**
 * @module judges/offline
 * The offline judges: deterministic, no network, based on static measurements of the
 * submission (docs/judges.md has every formula). Three lenses weigh the same measurements
 * differently — structure, hygiene, readability — so the offline panel is a real panel that
 * can disagree. Text that tries to instruct a judge is blanked before measuring, so it cannot
 * move these scores. Pure.
 */
import {
  COMPLEXITY_LIMIT,
  measureCode,
  type CodeMetrics,
  type Finding,
  type FindingRule,
} from "./analysis/index.ts";
import { findInjectionLines, stripInjectionLines } from "./injection.ts";
import { err, ok } from "@bouts/result";
import { submittedText, type Judge, type JudgeResult } from "./judge.ts";
import type {
  JudgeProvenance,
  JudgeTask,
  Judgement,
  RunFacts,
  RunTestFact,
  SourceFile,
} from "./task.ts";

type Group = "structure" | "hygiene" | "readability" | "base";

/** One deduction: which dimension, which lens group, how many points, why, and where. */
export interface Penalty {
  dimension: "readability" | "architecture" | "robustness" | "idiomaticity";
  group: Group;
  points: number;
  rule: string;
  why: string;
  /** Where it was seen: "file:line detail", at most five, then how many more. */
  evidence: string[];
}

const cap = (x: number, max: number) => Math.min(max, Math.max(0, x));
const EVIDENCE_SHOWN = 5;

const locate = (fs: readonly Finding[]): string[] => {
  const shown = fs.slice(0, EVIDENCE_SHOWN).map((f) => `${f.file}:${f.line} ${f.detail}`);
  return fs.length > EVIDENCE_SHOWN
    ? [...shown, `… and ${fs.length - EVIDENCE_SHOWN} more`]
    : shown;
};

/** Points per finding of a rule, capped: [dimension, group, points each, cap, why]. */
const PER_FINDING: Partial<
  Record<FindingRule, [Penalty["dimension"], Group, number, number, string]>
> = {
  "praise-comment": [
    "readability",
    "readability",
    4,
    20,
    "comments that praise the code instead of explaining it",
  ],
  "judge-directed-text": ["readability", "readability", 10, 20, "text addressed to the judges"],
  "commented-out-code": ["readability", "readability", 3, 12, "commented-out code"],
  "duplicate-block": ["architecture", "structure", 0, 0, ""],
  "many-parameters": ["architecture", "structure", 4, 12, "functions with over 5 parameters"],
  "import-side-effect": ["architecture", "structure", 6, 30, "work done at import time"],
  "trivial-wrapper": ["architecture", "structure", 0, 0, ""],
  "test-code-in-source": [
    "architecture",
    "hygiene",
    10,
    20,
    "test machinery shipped as the solution",
  ],
  "dead-code": ["architecture", "structure", 4, 20, "dead code"],
  "empty-catch": ["robustness", "hygiene", 10, 30, "errors swallowed by empty handlers"],
  "swallowed-error": ["robustness", "hygiene", 8, 24, "errors ignored or turned into null"],
  "bare-except": ["robustness", "hygiene", 8, 16, "bare except"],
  "error-detail-leak": ["robustness", "hygiene", 8, 16, "stack traces passed on"],
  "process-exit": ["robustness", "hygiene", 10, 30, "the process ended from library code"],
  "unused-parameter": ["robustness", "hygiene", 3, 15, "parameters never read"],
  "unchecked-input": ["robustness", "hygiene", 6, 18, "parsed input used without a check"],
  eval: ["robustness", "hygiene", 15, 30, "code evaluated from strings"],
  "sql-concatenation": ["robustness", "hygiene", 6, 24, "SQL built by concatenation"],
  "hardcoded-secret": ["robustness", "hygiene", 10, 20, "credentials in the source"],
  var: ["idiomaticity", "hygiene", 5, 20, "'var' declarations"],
  "loose-equality": ["idiomaticity", "hygiene", 3, 15, "loose equality"],
  "deprecated-api": ["idiomaticity", "hygiene", 8, 24, "deprecated APIs"],
  "nested-callback": ["idiomaticity", "structure", 6, 18, "nested callbacks"],
  "debug-print": ["idiomaticity", "readability", 3, 15, "debug output"],
  todo: ["idiomaticity", "readability", 5, 20, "TODO/FIXME markers"],
  "unguarded-for-in": ["idiomaticity", "hygiene", 5, 15, "for…in over inherited keys"],
  "mutable-default": ["idiomaticity", "hygiene", 8, 16, "mutable default arguments"],
  "wildcard-import": ["idiomaticity", "hygiene", 5, 10, "wildcard imports"],
  "lint-suppression": ["idiomaticity", "hygiene", 3, 12, "silenced checkers"],
};

/** Every code-quality deduction the measurements earn, before lens weighting. */
export function computeCodePenalties(m: CodeMetrics): Penalty[] {
  const p: Penalty[] = [];
  const by = (rule: FindingRule) => m.findings.filter((f) => f.rule === rule);
  const add = (
    dimension: Penalty["dimension"],
    group: Group,
    points: number,
    rule: string,
    why: string,
    evidence: string[] = [],
  ) => {
    if (points > 0)
      p.push({ dimension, group, points: Math.round(points * 100) / 100, rule, why, evidence });
  };
  // Stubs: there is no quality to credit in code that does not do anything. When every entry
  // point is a stub the submission does nothing at all: every dimension loses everything.
  if (m.doNothing) {
    const stubs = [...by("stub-function"), ...by("stub-handler")];
    for (const d of ["readability", "architecture", "robustness", "idiomaticity"] as const)
      add(
        d,
        "base",
        100,
        "do-nothing",
        `every entry point (${m.entryPoints}) throws, exits or answers a constant`,
        locate(stubs),
      );
  } else if (m.stubFunctions > 0) {
    const share = m.stubFunctions / Math.max(1, m.publicFunctions);
    const stubs = by("stub-function");
    for (const d of ["readability", "architecture", "robustness", "idiomaticity"] as const)
      add(
        d,
        "base",
        50 * share,
        "stub-function",
        `${m.stubFunctions} of ${m.publicFunctions} public function(s) are stubs`,
        locate(stubs),
      );
  }
  const cryptic = by("cryptic-name");
  add(
    "readability",
    "readability",
    cap(150 * (m.shortNameRatio - 0.1), 25),
    "cryptic-name",
    `${(m.shortNameRatio * 100).toFixed(0)}% of declared names are cryptic`,
    locate(cryptic),
  );
  add(
    "readability",
    "readability",
    cap(100 * m.longLineRatio, 15),
    "long-line",
    `${(m.longLineRatio * 100).toFixed(1)}% lines over 120 characters`,
    locate(by("long-line")),
  );
  if (m.codeLines > 30 && m.commentRatio < 0.02)
    add("readability", "readability", 8, "comments", "almost no comments");
  if (m.commentRatio > 0.45) add("readability", "readability", 8, "comments", "over-commented");
  const magic = by("magic-number");
  add(
    "readability",
    "readability",
    cap(1.5 * (magic.length - 3), 12),
    "magic-number",
    `${magic.length} unnamed numeric literal(s)`,
    locate(magic),
  );
  const nested = by("deep-nesting");
  add(
    "readability",
    "structure",
    cap(6 * (m.maxNesting - 3), 24),
    "deep-nesting",
    `control blocks nested ${m.maxNesting} deep`,
    locate(nested),
  );
  const docless = by("missing-docstring");
  if (docless.length)
    add(
      "readability",
      "readability",
      (15 * docless.length) / Math.max(1, m.publicFunctions),
      "missing-docstring",
      `${docless.length} public function(s) without a docstring`,
      locate(docless),
    );
  const hintless = by("missing-type-hints");
  if (hintless.length)
    add(
      "idiomaticity",
      "hygiene",
      (15 * hintless.length) / Math.max(1, m.publicFunctions),
      "missing-type-hints",
      `${hintless.length} public function(s) without type hints`,
      locate(hintless),
    );

  add(
    "architecture",
    "structure",
    cap(120 * m.duplicateRatio, 40),
    "duplicate-block",
    `${(m.duplicateRatio * 100).toFixed(0)}% of lines in repeated blocks (identifiers ignored)`,
    locate(by("duplicate-block")),
  );
  const complex = m.findings.filter((f) => f.rule === "complex-function");
  const excess = complex.reduce(
    (s, f) =>
      s + Number(/complexity (\d+)/.exec(f.detail)?.[1] ?? COMPLEXITY_LIMIT) - COMPLEXITY_LIMIT,
    0,
  );
  add(
    "architecture",
    "structure",
    cap(1.5 * excess, 25),
    "complex-function",
    `${complex.length} function(s) over complexity ${COMPLEXITY_LIMIT} (max ${m.maxComplexity})`,
    locate(complex),
  );
  const long = by("long-function");
  const longExcess = long.reduce(
    (s, f) => s + Number(/(\d+) lines/.exec(f.detail)?.[1] ?? 50) - 50,
    0,
  );
  add(
    "architecture",
    "structure",
    cap(0.4 * longExcess, 20),
    "long-function",
    `${long.length} function(s) over 50 lines`,
    locate(long),
  );
  add(
    "readability",
    "structure",
    cap(0.5 * (m.meanFunctionLines - 30), 15),
    "function-size",
    `${m.meanFunctionLines.toFixed(0)} lines per function (wrappers not counted)`,
  );
  if (m.codeLines > 300)
    add(
      "architecture",
      "structure",
      cap(40 * (m.largestFileShare - 0.6), 20),
      "file-size",
      `${(m.largestFileShare * 100).toFixed(0)}% of the code in one file`,
    );
  if (m.codeLines > 40 && m.largestFunctionShare > 0.5)
    add(
      "architecture",
      "structure",
      cap(60 * (m.largestFunctionShare - 0.5), 20),
      "function-share",
      `one function holds ${(m.largestFunctionShare * 100).toFixed(0)}% of the code`,
    );
  const wrappers = by("trivial-wrapper");
  if (wrappers.length >= 2)
    add(
      "architecture",
      "structure",
      cap(4 * wrappers.length, 20),
      "trivial-wrapper",
      `${wrappers.length} functions that only forward a call`,
      locate(wrappers),
    );

  if (m.codeLines > 10 && m.validationHints === 0 && m.rejections === 0)
    add("robustness", "hygiene", 15, "no-validation", "no input validation seen");
  if (m.codeLines > 15 && m.tryBlocks === 0 && m.rejections === 0)
    add("robustness", "hygiene", 10, "no-error-handling", "no explicit error handling");
  add(
    "robustness",
    "hygiene",
    cap((3 * by("any-type").length * 100) / Math.max(1, m.codeLines), 20),
    "any-type",
    `${by("any-type").length} 'any' type(s)`,
    locate(by("any-type")),
  );

  for (const [rule, spec] of Object.entries(PER_FINDING) as [
    FindingRule,
    NonNullable<(typeof PER_FINDING)[FindingRule]>,
  ][]) {
    const [dimension, group, each, max, why] = spec;
    if (each === 0) continue;
    const fs = by(rule);
    add(dimension, group, cap(each * fs.length, max), rule, `${fs.length} × ${why}`, locate(fs));
  }
  return p;
}

/** The three lenses and how much each weighs each penalty group. */
export const OFFLINE_LENSES: Record<string, Record<Group, number>> = {
  "offline-structure": { structure: 1.3, hygiene: 0.85, readability: 0.85, base: 1 },
  "offline-hygiene": { structure: 0.85, hygiene: 1.3, readability: 0.85, base: 1 },
  "offline-readability": { structure: 0.85, hygiene: 0.85, readability: 1.3, base: 1 },
};

const round = (x: number) => Math.round(cap(x, 100));

/** What an offline lens decides about a task: the rest of a judgement names the lens and task. */
export type OfflineGrade = Pick<
  Judgement,
  "dimensions" | "score" | "rationale" | "injectionSuspected"
> &
  Partial<Pick<Judgement, "deductions">>;

/** The provenance every heuristic judge reports. */
export const HEURISTIC_PROVENANCE: JudgeProvenance = {
  kind: "heuristic",
  method: 'static analysis (docs/judges.md, "The heuristic panel")',
};

/** An offline lens's judgement of `task`, answered at once. */
export function resolveOfflineJudgement(
  lens: string,
  task: JudgeTask,
  grade: OfflineGrade,
): Promise<JudgeResult> {
  return Promise.resolve(
    ok({
      judge: lens,
      source: "offline",
      task: task.kind,
      provenance: HEURISTIC_PROVENANCE,
      deductions: [],
      ...grade,
    }),
  );
}

/** An offline lens's refusal of a task it cannot grade, answered at once. */
export function resolveUnsupported(lens: string, detail: string): Promise<JudgeResult> {
  return Promise.resolve(err({ reason: "unsupported", judge: lens, detail }));
}

function judgeCode(lens: string, files: SourceFile[]): Omit<OfflineGrade, "injectionSuspected"> {
  const m = measureCode(files);
  if (m.codeLines === 0)
    return {
      dimensions: { readability: 0, architecture: 0, robustness: 0, idiomaticity: 0 },
      score: null,
      rationale: "no source code found",
    };
  const weights = OFFLINE_LENSES[lens]!;
  const dims = { readability: 100, architecture: 100, robustness: 100, idiomaticity: 100 };
  const penalties = computeCodePenalties(m);
  for (const p of penalties) dims[p.dimension] -= p.points * weights[p.group];
  const dimensions = {
    readability: round(dims.readability),
    architecture: round(dims.architecture),
    robustness: round(dims.robustness),
    idiomaticity: round(dims.idiomaticity),
  };
  const deductions = penalties.map((p) => ({
    dimension: p.dimension,
    rule: p.rule,
    points: Math.round(p.points * weights[p.group] * 100) / 100,
    why: p.why,
    evidence: p.evidence,
  }));
  const rationale =
    penalties.length === 0
      ? `heuristic: ${m.codeLines} code lines in ${m.files} file(s); no deductions`
      : `heuristic: ${m.codeLines} code lines in ${m.files} file(s); ${deductions.map((d) => `${d.dimension} −${d.points} ${d.rule} (${d.why}${d.evidence.length ? `: ${d.evidence.join(", ")}` : ""})`).join("; ")}`;
  return { dimensions, score: null, rationale, deductions };
}

// ─── Deliverables ───

/** Whether a deliverable counts as submitted; missing and placeholders score 0 without a judge. */
export function classifyDeliverable(text: string | null): "submitted" | "missing" | "placeholder" {
  if (text === null) return "missing";
  const body = stripInjectionLines(text)
    .replace(/^#+.*$/gm, "")
    .trim();
  if (body.replace(/\s+/g, "").length < 40) return "placeholder";
  if (/^(?:todo|tbd|coming soon|placeholder|lorem ipsum)\b/i.test(body)) return "placeholder";
  const lines = body.split("\n").filter((l) => l.trim());
  if (lines.filter((l) => /\b(?:TODO|TBD|FIXME)\b/.test(l)).length * 2 >= lines.length)
    return "placeholder";
  return "submitted";
}

/**
 * The run's tests a write-up's reference speaks for: tests aimed at it or named after it, else —
 * for the interface's module (with or without `:line`) or one of its functions — every test.
 * Empty when the run says nothing about it.
 */
function testsFor(ref: string, run: RunFacts): RunTestFact[] {
  const name = ref.replace(/\(\)$/, "").replace(/:\d+$/, "");
  const lower = name.toLowerCase();
  const named = run.tests.filter(
    (t) =>
      t.target === name ||
      (lower.length >= 3 &&
        (t.id.toLowerCase().includes(lower) || t.name.toLowerCase().includes(lower))),
  );
  if (named.length > 0) return named;
  const isModule = run.module !== null && (name === run.module || name.endsWith(`/${run.module}`));
  return isModule || run.functions.includes(name) ? run.tests : [];
}

/** The four deliverable dimensions by the documented heuristics. */
export function measureDeliverable(content: string, files: readonly SourceFile[], run?: RunFacts) {
  const text = stripInjectionLines(content);
  const words = text.split(/\s+/).filter(Boolean);
  const sentences = text.split(/[.!?]+\s|\n\n/).filter((s) => s.trim().split(/\s+/).length > 2);
  const meanSentence = words.length / Math.max(1, sentences.length);
  const refs = [...new Set([...text.matchAll(/`([^`\n]{2,80})`/g)].map((m) => m[1]!.trim()))];
  const corpus = files.map((f) => `${f.path}\n${f.content}`).join("\n");
  const resolved = refs.filter((r) => corpus.includes(r.replace(/\(\)$/, "").replace(/:\d+$/, "")));
  const concrete =
    (text.match(/[\w./-]+\.(?:[jt]sx?|py|md|json|sql)(?::\d+)?/g)?.length ?? 0) +
    (text.match(/\bline\s+\d+/gi)?.length ?? 0) +
    refs.length;
  // Claims are checked against the run: each reference the run has tests for is supported by
  // the share of them that pass, so a "fix" of code whose tests fail is not accurate.
  const evidenced = run ? resolved.map((r) => testsFor(r, run)).filter((ts) => ts.length > 0) : [];
  const support = evidenced.length
    ? evidenced.reduce((s, ts) => s + ts.filter((t) => t.passed).length / ts.length, 0) /
      evidenced.length
    : 1;
  const accuracy = (refs.length === 0 ? 50 : 40 + (60 * resolved.length) / refs.length) * support;
  const clarity =
    100 - cap(2 * (meanSentence - 25), 40) - (/^#/m.test(text) || words.length < 200 ? 0 : 10);
  const completeness =
    (words.length < 50 ? 30 : words.length < 150 ? 60 : 80) +
    (/\b(?:because|cause|root cause|why)\b/i.test(text) ? 10 : 0) +
    (/\b(?:prevent|regression test|test case|going forward|recurrence)\b/i.test(text) ? 10 : 0);
  const actionability = 40 + 10 * concrete;
  return {
    dimensions: {
      accuracy: round(accuracy),
      clarity: round(clarity),
      completeness: round(completeness),
      actionability: round(actionability),
    },
    facts: {
      words: words.length,
      meanSentenceWords: Math.round(meanSentence),
      references: refs.length,
      resolvedReferences: resolved.length,
      concreteItems: concrete,
      checkedAgainstRun: evidenced.length,
      runSupport: Math.round(support * 100) / 100,
    },
  };
}

const DELIVERABLE_LENS_SCALE: Record<string, number> = {
  "offline-structure": 1.15,
  "offline-hygiene": 1,
  "offline-readability": 0.85,
};

/** Creates one offline judge by lens name (see OFFLINE_LENSES). */
export function createOfflineJudge(lens: keyof typeof OFFLINE_LENSES): Judge {
  return {
    id: lens,
    source: "offline",
    judge(task: JudgeTask) {
      const injection = findInjectionLines(submittedText(task)).length > 0;
      if (task.kind === "code-quality")
        return resolveOfflineJudgement(lens, task, {
          ...judgeCode(lens, task.files),
          injectionSuspected: injection,
        });
      if (task.kind === "deliverable") {
        const { dimensions, facts } = measureDeliverable(
          task.deliverable.content,
          task.files,
          task.run,
        );
        const scale = DELIVERABLE_LENS_SCALE[lens] ?? 1;
        const scaled = Object.fromEntries(
          Object.entries(dimensions).map(([k, v]) => [k, round(100 - (100 - v) * scale)]),
        );
        return resolveOfflineJudgement(lens, task, {
          dimensions: scaled,
          score: null,
          rationale: `offline heuristics: ${JSON.stringify(facts)}; losses ×${scale}`,
          injectionSuspected: injection,
        });
      }
      return resolveUnsupported(lens, `the offline judge does not grade ${task.kind}`);
    },
  };
}

/** The default offline panel: the three lenses. */
export const createOfflinePanel = (): Judge[] =>
  Object.keys(OFFLINE_LENSES).map((l) => createOfflineJudge(l));
