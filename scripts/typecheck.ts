/**
 * @module scripts/typecheck
 * `npm run typecheck`: `tsc --noEmit` over every TypeScript project of the tree (the root
 * scripts, each workspace, and each workspace's `test/` project), with TypeScript 7's native
 * compiler, two projects at a time, each on one thread: by default each compiler splits its
 * checking over four checkers, and every checker resolves the types of the modules its files
 * import on its own, so the 31 projects took twice the CPU (100 CPU-s and 50 s on two cores,
 * against 49 and 25; docs/benchmarks.md, "suite"). ESLint keeps TypeScript 6 for its type-aware
 * rules (typescript-eslint does not take 7 yet); both read the same tsconfig files.
 *
 * The Workers are one project (`workers/tsconfig.json`), not one per role: the generated `Env`
 * (worker-configuration.d.ts) names the Durable Object classes through the platform entry, which
 * imports every role, so each role's program held and checked every role's sources; six programs
 * of the same files took 21.5 CPU-s, one takes 6.1.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname, join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..");
// TypeScript 7 is installed under an alias so that `tsc` (and typescript-eslint) stay on 6.
const TSC = join(
  dirname(createRequire(import.meta.url).resolve("typescript-7/package.json")),
  "bin",
  "tsc",
);

/** Every folder with a tsconfig.json that is its own project, root first. */
function findProjects(): string[] {
  // The workspaces as package.json declares them (`<group>/*` each).
  const { workspaces } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    workspaces: string[];
  };
  const projects = [ROOT];
  for (const group of workspaces.map((w) => w.replace(/\/\*$/, ""))) {
    // A group's own project (workers/: every role's sources and tests in one program).
    if (existsSync(join(ROOT, group, "tsconfig.json"))) projects.push(join(ROOT, group));
    for (const name of readdirSync(join(ROOT, group)).sort()) {
      for (const dir of [join(ROOT, group, name), join(ROOT, group, name, "test")]) {
        if (existsSync(join(dir, "tsconfig.json"))) projects.push(dir);
      }
    }
  }
  return projects;
}

interface Checked {
  project: string;
  ok: boolean;
  output: string;
  ms: number;
}

function check(dir: string): Promise<Checked> {
  const started = performance.now();
  return new Promise((resolve) => {
    const args = ["--noEmit", "--pretty", "false", "--singleThreaded", "-p", dir];
    const child = spawn(process.execPath, [TSC, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("close", (code) =>
      resolve({
        project: relative(ROOT, dir) || ".",
        ok: code === 0,
        output,
        ms: Math.round(performance.now() - started),
      }),
    );
  });
}

async function main(): Promise<void> {
  const queue = findProjects();
  const results: Checked[] = [];
  const width = Math.max(1, Math.min(2, availableParallelism()));
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) {
        const r = await check(dir);
        results.push(r);
        console.log(`typecheck: ${r.ok ? "ok" : "FAILED"} ${r.project} (${r.ms} ms)`);
        if (!r.ok) process.stdout.write(r.output);
      }
    }),
  );
  const failed = results.filter((r) => !r.ok);
  console.log(`typecheck: ${results.length - failed.length} projects ok, ${failed.length} failed`);
  process.exitCode = failed.length === 0 ? 0 : 1;
}

await main();
