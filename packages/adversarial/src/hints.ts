/**
 * @module adversarial/hints
 * Reading the submitted code for what the engineering spec's generator looks for — unvalidated
 * inputs, non-atomic state updates, missing null checks, weak type assumptions, unguarded
 * recursion, injectable query text — and turning each finding into a priority for the tests that
 * probe it. Heuristic and honest about it: a hint only adds declared-interface tests on top of
 * the draw (budget.ts `drawCandidates`); it never removes one and never decides a verdict.
 * Invariant: only comment-stripped code is read (`stripComments`, offsets and lines kept), so a
 * comment — whatever it says — changes no hint. Pure: text in, hints out.
 */
import type { SourceFile } from "@bouts/contracts";
import { stripComments } from "@bouts/judges";

/** One thing the code suggests testing, with where it was seen. */
export interface CodeHint {
  /** Candidate keys it boosts: `<technique>:<target>` or `<technique>:<target>:<param>`, `*` wildcards. */
  keys: string[];
  weight: number;
  reason: string;
}

const CODE_FILE = /\.(m?[jt]s|cjs|py)$/;

function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Where in the sources `re` first matches, as "file:line", or null. */
function findFirst(sources: readonly SourceFile[], re: RegExp): string | null {
  for (const f of sources) {
    if (!CODE_FILE.test(f.path)) continue;
    const m = re.exec(f.content);
    if (m) return `${f.path}:${lineOf(f.content, m.index)}`;
  }
  return null;
}

/** Query text built by interpolation or concatenation rather than bound parameters. */
const SQL_INTERPOLATION =
  /\b(SELECT|INSERT|UPDATE|DELETE)\b[^;\n]*?(\$\{|["'`]\s*\+\s*\w|%s|\bf["'][^"'\n]*\{|\.format\()/i;
/** A computed-key assignment: the shape of prototype pollution. */
const DYNAMIC_KEY_WRITE = /\w\s*\[\s*[A-Za-z_$][\w$]*\s*\]\s*=(?!=)/;
/** Any of the usual guards against hostile keys. */
const KEY_GUARD =
  /__proto__|Object\.hasOwn|hasOwnProperty|Object\.create\(\s*null\s*\)|new Map\(|"constructor"|'constructor'/;
/** Module-level mutable state (shared between calls). */
const MODULE_STATE =
  /^(let|var)\s+[A-Za-z_$][\w$]*\s*=|^[A-Za-z_]\w*\s*=\s*(\[\]|\{\}|dict\(|list\()|^\s*global\s+\w/m;
/** A uniqueness constraint in a schema. */
const UNIQUE_CONSTRAINT = /\bUNIQUE\b|PRIMARY\s+KEY\s*\(\s*\w*name/i;
/** Explicit depth or cycle bookkeeping in recursive code. */
const DEPTH_GUARD =
  /\bdepth\b|\bseen\b|\bvisited\b|WeakSet|WeakMap|\bstack\b|RecursionError|setrecursionlimit/i;
/** A size or length bound. */
const SIZE_GUARD =
  /\.length\s*[<>]=?|len\([^)]*\)\s*[<>]=?|\bmaxLength\b|\bMAX_[A-Z_]*\b|content-length|bodyLimit|limit/i;

/** True when the sources check the type of `name` somewhere. */
function hasTypeCheck(sources: readonly SourceFile[], name: string): boolean {
  const n = escapeRegExp(name);
  const re = new RegExp(
    `typeof\\s+${n}\\b|${n}\\s+instanceof\\b|Array\\.isArray\\(\\s*${n}\\b|Number\\.is(Integer|Finite|SafeInteger)\\(\\s*${n}\\b|isinstance\\(\\s*${n}\\b|type\\(\\s*${n}\\s*\\)|\\b${n}\\s*(===|!==)\\s*null|\\.parse\\(\\s*${n}\\b|z\\.`,
  );
  return findFirst(sources, re) !== null;
}

/** A function whose body calls itself (direct recursion), by name. */
function findRecursion(sources: readonly SourceFile[]): string | null {
  for (const f of sources) {
    if (!CODE_FILE.test(f.path)) continue;
    const defs = f.content.matchAll(/(?:function\s+|def\s+|const\s+)([A-Za-z_$][\w$]*)/g);
    for (const d of defs) {
      const name = d[1]!;
      const rest = f.content.slice(d.index + d[0].length, d.index + d[0].length + 4000);
      if (new RegExp(`\\b${escapeRegExp(name)}\\s*\\(`).test(rest))
        return `${f.path}:${lineOf(f.content, d.index)} (${name} calls itself)`;
    }
  }
  return null;
}

/** The parameter/field names the interface declares, per target. */
export interface HintTargets {
  /** target → parameter or field names. */
  params: Map<string, string[]>;
  /** Targets with a uniqueness rule (HTTP). */
  unique: string[];
}

/**
 * Reads the sources with their comments blanked and returns the hints that apply to the
 * declared targets. Two sources that differ only in comments give the same hints.
 */
export function readCodeHints(submitted: readonly SourceFile[], targets: HintTargets): CodeHint[] {
  const sources = submitted.map((f) =>
    CODE_FILE.test(f.path) ? { ...f, content: stripComments(f.path, f.content) } : f,
  );
  const hints: CodeHint[] = [];
  const sql = findFirst(sources, SQL_INTERPOLATION);
  if (sql)
    hints.push({
      keys: ["injection:*"],
      weight: 3,
      reason: `query text is built by interpolation at ${sql}`,
    });
  const keyWrite = findFirst(sources, DYNAMIC_KEY_WRITE);
  if (keyWrite && !findFirst(sources, KEY_GUARD))
    hints.push({
      keys: ["injection:*"],
      weight: 3,
      reason: `computed-key writes with no hostile-key guard at ${keyWrite}`,
    });
  const state = findFirst(sources, MODULE_STATE);
  if (state)
    hints.push({
      keys: ["concurrent:*"],
      weight: 2,
      reason: `module-level mutable state at ${state}`,
    });
  if (targets.unique.length > 0 && !findFirst(sources, UNIQUE_CONSTRAINT))
    hints.push({
      keys: targets.unique.map((t) => `concurrent:${t}`),
      weight: 3,
      reason: "uniqueness is checked in code with no UNIQUE constraint (check-then-insert race)",
    });
  const recursion = findRecursion(sources);
  if (recursion && !findFirst(sources, DEPTH_GUARD))
    hints.push({
      keys: ["oversized:*"],
      weight: 2,
      reason: `recursion without a depth or cycle guard at ${recursion}`,
    });
  if (!findFirst(sources, SIZE_GUARD))
    hints.push({ keys: ["oversized:*"], weight: 1, reason: "no size or length bound found" });
  for (const [target, names] of targets.params) {
    for (const name of names) {
      if (hasTypeCheck(sources, name)) continue;
      hints.push({
        keys: [`wrong-type:${target}:${name}`, `empty-boundary:${target}:${name}`],
        weight: 2,
        reason: `no type or null check on \`${name}\` found`,
      });
    }
  }
  return hints;
}

/** Matches a candidate key against a hint key (`*` matches one or more trailing segments). */
export function hintMatches(hintKey: string, candidateKey: string): boolean {
  if (hintKey.endsWith(":*")) return candidateKey.startsWith(hintKey.slice(0, -1));
  return candidateKey === hintKey || candidateKey.startsWith(`${hintKey}:`);
}

/** The total priority and the strongest reason for one candidate key. */
export function applyHints(
  hints: readonly CodeHint[],
  candidateKey: string,
): { priority: number; reason: string | null } {
  let priority = 0;
  let best: CodeHint | null = null;
  for (const h of hints) {
    if (!h.keys.some((k) => hintMatches(k, candidateKey))) continue;
    priority += h.weight;
    if (!best || h.weight > best.weight) best = h;
  }
  return { priority, reason: best?.reason ?? null };
}
