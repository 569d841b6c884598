import { defineConfig } from "vitest/config";
import { FileTimesReporter } from "./scripts/lib/file-times-reporter.ts";
import { LongestFirstSequencer } from "./scripts/lib/test-order.ts";
import { VITEST_PROJECTS } from "./scripts/lib/vitest-projects.ts";

// The projects' configs (Node projects, and workerd projects through the Cloudflare plugin) are
// listed in scripts/lib/vitest-projects.ts, which the tests over every config read too. `npm test` asks for a JSON report to count totals
// (VITEST_JSON) and for each file's duration (VITEST_FILE_TIMES, read by `npm run test:durations`).
// How many files run at once is not set here: vitest 5 passes a root `maxWorkers` to no project
// declared by file (each would take its own default, one worker on two cores, and run every file
// in turn). `npm test` (scripts/test.ts) gives `--maxWorkers` on the command line, which reaches
// every project (`npm run test:unit` is plain `vitest run`, with vitest's defaults).
const json = process.env.VITEST_JSON;
const fileTimes = process.env.VITEST_FILE_TIMES;

export default defineConfig({
  test: {
    projects: [...VITEST_PROJECTS],
    // The longest files first, across projects (scripts/lib/test-order.ts).
    sequence: { sequencer: LongestFirstSequencer },
    reporters: [
      "default",
      ...(json ? [["json", { outputFile: json }] satisfies ["json", { outputFile: string }]] : []),
      ...(fileTimes ? [new FileTimesReporter(fileTimes)] : []),
    ],
  },
});
