/**
 * @module judges/offline
 * The offline judges: deterministic, no network, based on static measurements of the
 * submission (docs/judges.md has every formula). Three lenses weigh the same measurements
 * differently — structure, hygiene, readability — so the offline panel is a real panel that
 * can disagree. Text that tries to instruct a judge is blanked before measuring, so it cannot
 * move these scores. Pure.
 */
import { measureCode, per100, type CodeMetrics } from "./analysis.ts";
import { findInjectionLines, stripInjectionLines } from "./injection.ts";
import { err, ok } from "@bouts/result";
import { submittedText, type Judge, type JudgeResult } from "./judge.ts";
import type { JudgeTask, Judgement, SourceFile } from "./task.ts";

type Group = "structure" | "hygiene" | "readability";

/** One penalty: which dimension, which lens group, how many points, and why. */
interface Penalty {
  dimension: "readability" | "architecture" | "robustness" | "idiomaticity";
  group: Group;
  points: number;
  why: string;
}

const cap = (x: number, max: number) => Math.min(max, Math.max(0, x));

/** Every code-quality penalty the measurements earn, before lens weighting. */
export function computeCodePenalties(m: CodeMetrics): Penalty[] {
  const p: Penalty[] = [];
  const add = (dimension: Penalty["dimension"], group: Group, points: number, why: string) => {
    if (points > 0) p.push({ dimension, group, points: Math.round(points * 100) / 100, why });
  };
  add(
    "readability",
    "readability",
    cap(150 * (m.shortNameRatio - 0.05), 30),
    `${(m.shortNameRatio * 100).toFixed(1)}% cryptic short names`,
  );
  add(
    "readability",
    "readability",
    cap(100 * m.longLineRatio, 20),
    `${(m.longLineRatio * 100).toFixed(1)}% lines over 120 characters`,
  );
  if (m.codeLines > 30 && m.commentRatio < 0.03)
    add("readability", "readability", 10, "almost no comments");
  if (m.commentRatio > 0.4) add("readability", "readability", 10, "over-commented");
  add("readability", "structure", cap(6 * (m.maxNesting - 4), 24), `nesting depth ${m.maxNesting}`);
  add(
    "readability",
    "structure",
    cap(0.5 * (m.meanFunctionLines - 30), 20),
    `${m.meanFunctionLines.toFixed(0)} lines per function`,
  );
  add(
    "architecture",
    "structure",
    cap(120 * m.duplicateRatio, 40),
    `${(m.duplicateRatio * 100).toFixed(1)}% duplicated 4-line blocks`,
  );
  if (m.codeLines > 300)
    add(
      "architecture",
      "structure",
      cap(40 * (m.largestFileShare - 0.6), 20),
      `${(m.largestFileShare * 100).toFixed(0)}% of the code in one file`,
    );
  add(
    "architecture",
    "structure",
    cap(0.6 * (m.meanFunctionLines - 25), 25),
    `${m.meanFunctionLines.toFixed(0)} lines per function`,
  );
  add(
    "architecture",
    "structure",
    cap(5 * (m.maxNesting - 5), 15),
    `nesting depth ${m.maxNesting}`,
  );
  add(
    "robustness",
    "hygiene",
    cap(10 * m.emptyCatches, 30),
    `${m.emptyCatches} swallowed error(s)`,
  );
  add("robustness", "hygiene", cap(3 * per100(m, m.anyTypes), 20), `${m.anyTypes} 'any' type(s)`);
  if (m.codeLines > 20 && m.validationHints === 0)
    add("robustness", "hygiene", 15, "no input validation seen");
  if (m.codeLines > 50 && m.tryBlocks === 0)
    add("robustness", "hygiene", 10, "no explicit error handling");
  add("robustness", "hygiene", cap(15 * m.evalCalls, 30), `${m.evalCalls} eval/exec call(s)`);
  add(
    "idiomaticity",
    "hygiene",
    cap(5 * m.varDeclarations, 20),
    `${m.varDeclarations} 'var' declaration(s)`,
  );
  add(
    "idiomaticity",
    "hygiene",
    cap(3 * m.looseEquality, 15),
    `${m.looseEquality} loose equality comparison(s)`,
  );
  add(
    "idiomaticity",
    "hygiene",
    cap(8 * m.deprecatedCalls, 24),
    `${m.deprecatedCalls} deprecated API call(s)`,
  );
  add(
    "idiomaticity",
    "structure",
    cap(6 * m.nestedCallbacks, 18),
    `${m.nestedCallbacks} nested callback(s)`,
  );
  add(
    "idiomaticity",
    "readability",
    cap(2 * m.consoleCalls, 10),
    `${m.consoleCalls} debug print(s)`,
  );
  add(
    "idiomaticity",
    "readability",
    cap(3 * m.todoMarkers, 15),
    `${m.todoMarkers} TODO/FIXME marker(s)`,
  );
  return p;
}

/** The three lenses and how much each weighs each penalty group. */
export const OFFLINE_LENSES: Record<string, Record<Group, number>> = {
  "offline-structure": { structure: 1.3, hygiene: 0.85, readability: 0.85 },
  "offline-hygiene": { structure: 0.85, hygiene: 1.3, readability: 0.85 },
  "offline-readability": { structure: 0.85, hygiene: 0.85, readability: 1.3 },
};

const round = (x: number) => Math.round(cap(x, 100));

/** What an offline lens decides about a task: the rest of a judgement names the lens and task. */
export type OfflineGrade = Pick<
  Judgement,
  "dimensions" | "score" | "rationale" | "injectionSuspected"
>;

/** An offline lens's judgement of `task`, answered at once. */
export function resolveOfflineJudgement(
  lens: string,
  task: JudgeTask,
  grade: OfflineGrade,
): Promise<JudgeResult> {
  return Promise.resolve(ok({ judge: lens, source: "offline", task: task.kind, ...grade }));
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
  const rationale =
    penalties.length === 0
      ? `${m.codeLines} code lines in ${m.files} file(s); no penalties`
      : `${m.codeLines} code lines in ${m.files} file(s); ${penalties.map((p) => `${p.dimension} −${p.points}×${weights[p.group]} (${p.why})`).join("; ")}`;
  return { dimensions, score: null, rationale };
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

/** The four deliverable dimensions by the documented heuristics. */
export function measureDeliverable(content: string, files: readonly SourceFile[]) {
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
  const accuracy = refs.length === 0 ? 50 : 40 + (60 * resolved.length) / refs.length;
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
        const { dimensions, facts } = measureDeliverable(task.deliverable.content, task.files);
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
