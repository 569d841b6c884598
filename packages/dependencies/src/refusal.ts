/**
 * @module dependencies/refusal
 * Why a lockfile (or a folder's set of dependency files) is refused: a tagged union keyed by
 * `rule`, each naming the file, the package (null for a whole-file rule) and, for
 * requirements.txt, the line. The detail texts are written here and in the readers, once;
 * docs/dependencies.md lists them. Pure: values only.
 */

/** Every rule a refusal can name. */
export const DEPENDENCY_RULES = [
  "too-large",
  "unreadable",
  "unsupported-lockfile",
  "missing-lockfile",
  "missing-manifest",
  "conflicting-lockfiles",
  "wrong-ecosystem",
  "lock-mismatch",
  "unsatisfied-range",
  "missing-direct-dependency",
  "non-registry-source",
  "missing-integrity",
  "weak-integrity",
  "invalid-name",
  "inexact-version",
  "duplicate-package",
  "include",
  "index-option",
  "unsupported-option",
  "too-many-packages",
  "typosquat",
] as const;
export type DependencyRule = (typeof DEPENDENCY_RULES)[number];

interface RefusalBase {
  /** The lockfile or manifest, relative to the folder (e.g. `package-lock.json`). */
  file: string;
  /** The package the rule refuses; null when the rule is about the whole file. */
  package: string | null;
  /** The requirements.txt line (1-based, the first line of a continued one), when there is one. */
  line?: number;
  /** One sentence: what is wrong and, where it helps, what to do. */
  detail: string;
}

type PlainRule = Exclude<DependencyRule, "too-large" | "too-many-packages" | "typosquat">;

/** One refused thing, tagged by `rule`. */
export type DependencyRefusal =
  | (RefusalBase & { rule: "too-large"; bytes: number; limit: number })
  | (RefusalBase & { rule: "too-many-packages"; count: number; limit: number })
  | (RefusalBase & { rule: "typosquat"; package: string; resembles: string })
  | (RefusalBase & { rule: PlainRule });

/** Builds a refusal of one of the rules that carry no data beyond the base. */
export function invalid(
  rule: PlainRule,
  file: string,
  pkg: string | null,
  detail: string,
  line?: number,
): DependencyRefusal {
  return { rule, file, package: pkg, detail, ...(line !== undefined ? { line } : {}) };
}

/** A file over the byte bound (counted in UTF-8 bytes). */
export function invalidSize(file: string, bytes: number, limit: number): DependencyRefusal {
  return {
    rule: "too-large",
    file,
    package: null,
    bytes,
    limit,
    detail: `${file} is ${bytes} bytes; at most ${limit} are read`,
  };
}

/** A lock that pins more packages than the policy allows. */
export function invalidCount(file: string, count: number, limit: number): DependencyRefusal {
  return {
    rule: "too-many-packages",
    file,
    package: null,
    count,
    limit,
    detail: `${file} pins ${count} packages; this challenge allows at most ${limit}`,
  };
}

/** A name one slip away from a popular package's. */
export function invalidTyposquat(
  file: string,
  pkg: string,
  resembles: string,
  line?: number,
): DependencyRefusal {
  return {
    rule: "typosquat",
    file,
    package: pkg,
    resembles,
    detail:
      `${pkg} is one slip away from the popular package ${resembles}: if it is what you mean, ` +
      "ask the challenge's author to add it to dependencies.allowNames",
    ...(line !== undefined ? { line } : {}),
  };
}

/** One line naming the rule, the file (and line) and the package: `rule file[:line] package: detail`. */
export function describeDependencyRefusal(r: DependencyRefusal): string {
  const where = r.line !== undefined ? `${r.file}:${r.line}` : r.file;
  return `${r.rule} ${where}${r.package !== null ? ` ${r.package}` : ""}: ${r.detail}`;
}
