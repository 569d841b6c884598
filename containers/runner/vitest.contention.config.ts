/**
 * Vitest project "runner-contention": the runner's fairness tests between concurrent runs (a
 * fork bomb beside an honest run). They measure against deadlines, so they run alone: the last
 * step of `npm test` (scripts/test.ts), and after every other project in a plain `vitest run`;
 * one file at a time.
 */
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "runner-contention",
    include: ["test/contention/**/*.test.ts"],
    fileParallelism: false,
    sequence: { groupOrder: 2 },
  },
});
