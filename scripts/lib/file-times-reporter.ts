/**
 * @module scripts/lib/file-times-reporter
 * A vitest reporter that writes each test file's duration, as vitest's results cache records it
 * (its tests and hooks, `beforeAll` included: `diagnostic().duration`), to a JSON file: path from
 * the root → ms. `npm run test:durations` turns these into the figures the test order starts from
 * on a machine without that cache (scripts/lib/test-order.ts). The JSON reporter's per-file times
 * span the first test's start to the last test's end, so a file that scores submissions in
 * `beforeAll` looked seconds long when it held a worker for a minute.
 * Invariant: only files that ran to an end are written; the file is replaced whole.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

const ROOT = path.join(import.meta.dirname, "../..");

/** Writes `{ "<file>": ms }` for every test file of the run to `outputFile`. */
export class FileTimesReporter implements Reporter {
  readonly #outputFile: string;

  constructor(outputFile: string) {
    this.#outputFile = outputFile;
  }

  onTestRunEnd(testModules: readonly TestModule[]): void {
    const times: Record<string, number> = {};
    for (const m of testModules) {
      const state = m.state();
      if (state !== "passed" && state !== "failed") continue;
      const file = path.relative(ROOT, m.moduleId).split(path.sep).join("/");
      times[file] = Math.max(0, Math.round(m.diagnostic().duration));
    }
    mkdirSync(path.dirname(this.#outputFile), { recursive: true });
    writeFileSync(this.#outputFile, `${JSON.stringify(times, null, 2)}\n`);
  }
}
