/**
 * @module scripts/test-durations
 * `npm run test:durations`: rewrites scripts/lib/test-durations.json, the file lengths the test
 * order starts from on a machine without vitest's results cache (scripts/lib/test-order.ts),
 * from each file's duration in the last `npm test` (test-artifacts/file-times/<step>.json,
 * scripts/lib/file-times-reporter.ts: tests and hooks, the measure vitest's cache keeps). Files
 * under three seconds are left out: their order does not move the end of a run.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { FILE_TIMES } from "./test.ts";

const ROOT = path.join(import.meta.dirname, "..");
const OUT = path.join(ROOT, "scripts/lib/test-durations.json");
const MIN_SECONDS = 3;

if (!existsSync(FILE_TIMES)) {
  console.error(`test:durations: ${FILE_TIMES} is missing: run npm test first`);
  process.exit(1);
}
const seconds: Record<string, number> = {};
for (const report of readdirSync(FILE_TIMES).filter((f) => f.endsWith(".json"))) {
  const times = JSON.parse(readFileSync(path.join(FILE_TIMES, report), "utf8")) as Record<
    string,
    number
  >;
  for (const [file, ms] of Object.entries(times)) {
    const s = Math.round(ms / 1000);
    if (s >= MIN_SECONDS) seconds[file] = s;
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort((a, b) => b[1] - a[1]));
writeFileSync(OUT, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(
  `test:durations: ${Object.keys(sorted).length} files written to ${path.relative(ROOT, OUT)}`,
);
