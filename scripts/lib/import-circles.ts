/**
 * @module scripts/lib/import-circles
 * The import circles among the project's TypeScript modules, as dependency-cruiser reads them:
 * every static import and re-export, type-only ones included (`import type` vanishes at runtime
 * but still ties two modules together), workspace names (`@bouts/*`) followed to the files they
 * name. It is the one circle check of the tree (ESLint's `import-x/no-cycle` skipped type-only
 * imports, and took a tenth of the lint's time redoing part of this). Invariant: each circle is
 * listed once, rotated to start at its first file in sort order.
 */
import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser";

/**
 * Where no module may import a circle: the whole tree ("."), sources, tests, scripts and
 * configs alike, but for what is not ours (`NOT_OURS`).
 */
export const CIRCLE_FREE_ROOTS = ["."];

/**
 * Files that hold no module of ours: installed packages, hidden folders (git, the Python
 * environments, caches), generated declarations, build output, test output; and the code a
 * test hands the sandbox as a submission (the example challenges, the runner's exploits,
 * fixtures and honest programs, the scan rules' samples), which ESLint does not read either.
 */
const NOT_OURS = [
  "(^|/)(node_modules|\\.[^/]+|dist)/",
  "\\.d\\.ts$",
  "^(challenges|test-artifacts)/",
  "^containers/runner/(test/(exploits|fixtures|honest)|scan-rules)/",
].join("|");

/** One circle: its files in import order, the last importing the first. */
export type ImportCircle = string[];

/**
 * Finds every import circle among the modules under `roots` (paths relative to `baseDir`) and
 * those they import.
 * @example await findImportCircles(ROOT) // [] when the tree has none
 */
export async function findImportCircles(
  baseDir: string,
  roots: readonly string[] = CIRCLE_FREE_ROOTS,
): Promise<ImportCircle[]> {
  const reported = await cruise([...roots], {
    baseDir,
    tsPreCompilationDeps: true,
    exclude: { path: NOT_OURS },
    doNotFollow: { path: "node_modules" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "default"],
      extensions: [".ts", ".js", ".mjs"],
    },
    validate: true,
    ruleSet: {
      forbidden: [{ name: "no-circular", severity: "error", from: {}, to: { circular: true } }],
    },
  });
  const result = reported.output as ICruiseResult;
  return dedupe(
    result.summary.violations.filter((v) => v.rule.name === "no-circular").map(circleOf),
  );
}

/** The circle a violation reports: the importing file, then the files its import leads back through. */
function circleOf(v: IViolation): ImportCircle {
  return [v.from, ...(v.cycle ?? []).map((step) => step.name)].slice(0, -1);
}

/** Each circle once, whatever file its report started at. */
function dedupe(circles: ImportCircle[]): ImportCircle[] {
  const byKey = new Map<string, ImportCircle>();
  for (const circle of circles) {
    const first = circle.indexOf([...circle].sort()[0]!);
    const rotated = [...circle.slice(first), ...circle.slice(0, first)];
    byKey.set(rotated.join(" -> "), rotated);
  }
  return [...byKey.values()].sort((a, b) => a.join().localeCompare(b.join()));
}
