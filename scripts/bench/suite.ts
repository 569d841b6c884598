/**
 * `npm run bench -- suite`: `npm test` as it runs (scripts/test.ts: its phases, lanes side by
 * side), then each step's wall time as `suite_<step>_ms` and the whole run as
 * `suite_total_ms`, read from the step table it writes (test-artifacts/test-steps.json); and,
 * where /proc/stat gave them, the machine's busy CPU time over the run as `suite_cpu_s` and that
 * over the cores as `suite_cpu_floor_s`: the least any order of the steps could take here.
 * Invariants: the very command `npm test` is; a failing run fails the bench (its figures would
 * time a failure, not the suite).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../lib/local-platform.ts";
import type { PhaseResult, StepResult } from "../test.ts";

function npmTest(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["test"], { cwd: ROOT, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`npm test exited with ${code}`)),
    );
  });
}

export default async function bench(): Promise<void> {
  await npmTest();
  const { totalMs, cores, phases, steps } = JSON.parse(
    readFileSync(path.join(ROOT, "test-artifacts/test-steps.json"), "utf8"),
  ) as { totalMs: number; cores: number; phases: PhaseResult[]; steps: StepResult[] };
  for (const step of steps) {
    console.log(
      `suite_${step.name.replace(/[^a-z0-9]+/gi, "_")}_ms: ${Math.round(step.durationMs)}`,
    );
  }
  console.log(`suite_total_ms: ${Math.round(totalMs)}`);
  if (phases.every((p) => p.cpuMs !== null)) {
    const cpuS = phases.reduce((sum, p) => sum + p.cpuMs!, 0) / 1000;
    console.log(`suite_cpu_s: ${cpuS.toFixed(1)}`);
    console.log(`suite_cpu_floor_s: ${(cpuS / cores).toFixed(1)}`);
  }
}
