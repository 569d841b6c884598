/**
 * `npm run bench -- suite`: wall time of each stage of `npm test` (setup, format check, lint,
 * type check, deploy check where present, vitest), run as `npm test` runs them, one after
 * another, and their sum. Invariants: the same npm scripts `npm test` calls; a failing stage
 * fails the bench (its figure would time a failure, not the suite).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../lib/local-platform.ts";

/** The stages of the `test` script, in its order (`bash scripts/setup.sh --tests && npm run a && …`). */
function readStages(): { name: string; command: string[] }[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  return pkg.scripts.test!.split("&&").map((part) => {
    const words = part.trim().split(/\s+/);
    const script = words.find((w) => w.endsWith(".sh")) ?? words.at(-1)!;
    const name = words[0] === "npm" ? words[2]! : path.basename(script, ".sh");
    return { name: name.replace(/[^a-z0-9]+/gi, "_"), command: words };
  });
}

function time(command: string[]): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(performance.now() - t0)
        : reject(new Error(`${command.join(" ")} exited with ${code}`)),
    );
  });
}

export default async function bench(): Promise<void> {
  let total = 0;
  for (const stage of readStages()) {
    const ms = await time(stage.command);
    total += ms;
    console.log(`suite_${stage.name}_ms: ${Math.round(ms)}`);
  }
  console.log(`suite_total_ms: ${Math.round(total)}`);
}
