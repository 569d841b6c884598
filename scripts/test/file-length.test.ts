/**
 * The 600-line rule (issue #36): no product file (.ts, .mjs, .py under packages/, workers/,
 * containers/ and scripts/) is over 600 lines, except generated ones. Tests, fixtures and the
 * challenge bundles are not product files. A file over the limit is split along a natural seam;
 * the only exceptions are the allow-listed files below, each with its reason, so the debt stays
 * visible, and an allow-listed file that is back under the limit must leave the list.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../lib/local-platform.ts";

const MAX_LINES = 600;

/** Where product code lives. */
const PRODUCT_ROOTS = ["packages", "workers", "containers", "scripts"];

const SOURCE = /\.(?:ts|mjs|py)$/;
/** Folders that hold tests, fixtures or installed or built code, never product code. */
const SKIPPED_DIRS = new Set(["node_modules", "dist", "test", "tests", "__tests__", "fixtures"]);
const TEST_FILE = /\.(?:test|spec)\.[cm]?ts$|(?:^|\/)test_[^/]*\.py$|_test\.py$/;

/** Generated files: their length is their generator's. */
const GENERATED = new Set([
  // `npm run cf-typegen` (wrangler types)
  "workers/platform/worker-configuration.d.ts",
  "workers/platform/worker-runtime.d.ts",
  // `npm run client:generate` (openapi-typescript over /openapi.json)
  "packages/client/src/schema.ts",
  // `npm run mcp:docs` (docs/scoring.md as a string)
  "workers/platform/src/mcp/scoring-rules.ts",
]);

/** Product files allowed over the limit: debt, each with why it is not split yet. */
const ALLOWED_OVER_LIMIT = new Map([
  // The sandbox harnesses: each is copied into the sandbox and loaded there as one file beside
  // the submission's code (the value codec of the bridge between the trusted tests and the
  // subject). Splitting them changes what runs inside the sandbox; left for a change of its own.
  ["containers/runner/harness/python/bouts_codec.py", "sandbox harness, loaded as one file"],
  ["containers/runner/harness/node/codec.mjs", "sandbox harness, loaded as one file"],
]);

/** Every product source file, relative to the root, with '/' separators. */
function listProductFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!entry.name.startsWith(".") && !SKIPPED_DIRS.has(entry.name)) walk(rel);
      } else if (SOURCE.test(entry.name) && !TEST_FILE.test(rel) && !GENERATED.has(rel)) {
        files.push(rel);
      }
    }
  };
  for (const root of PRODUCT_ROOTS) walk(root);
  return files.sort();
}

/** Lines as `wc -l` counts them. */
function countLines(file: string): number {
  return readFileSync(path.join(ROOT, file), "utf8").split("\n").length - 1;
}

describe("the 600-line rule", () => {
  const lengths = new Map(listProductFiles().map((f) => [f, countLines(f)]));

  it("reads the product tree", () => {
    expect(lengths.size).toBeGreaterThan(100);
    expect(lengths.has("workers/platform/src/index.ts")).toBe(true);
    expect(lengths.has("containers/runner/harness/node/codec.mjs")).toBe(true);
  });

  it("holds every product file to 600 lines, generated and allow-listed files aside", () => {
    const offenders = [...lengths]
      .filter(([file, n]) => n > MAX_LINES && !ALLOWED_OVER_LIMIT.has(file))
      .map(([file, n]) => `${file}: ${n} lines`);
    expect(offenders, "split these files along a natural seam").toEqual([]);
  });

  it("keeps the allow-list to files still over the limit", () => {
    const stale = [...ALLOWED_OVER_LIMIT.keys()].filter(
      (file) => (lengths.get(file) ?? 0) <= MAX_LINES,
    );
    expect(stale, "remove these from ALLOWED_OVER_LIMIT").toEqual([]);
  });

  it("names only generated files that exist and say they are generated", () => {
    for (const file of GENERATED) {
      const head = readFileSync(path.join(ROOT, file), "utf8").slice(0, 300);
      expect(head, file).toMatch(/generated/i);
    }
  });
});
