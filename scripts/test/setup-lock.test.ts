/**
 * `scripts/setup.sh` runs under one lock per checkout (`.cache/setup.lock`): two `npm start`s
 * side by side, or the e2e files' platforms, each run it, and must not install into the same
 * venvs and caches at once. The setup here is the real one, on a machine already set up, so it
 * only checks each tool and ends in seconds.
 */
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.join(import.meta.dirname, "../..");
const LOCK = path.join(ROOT, ".cache/setup.lock");

function run(
  command: string,
  args: string[],
): { done: Promise<number | null>; ended: () => boolean } {
  const child = spawn(command, args, { cwd: ROOT, stdio: "ignore" });
  let ended = false;
  const done = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      ended = true;
      resolve(code);
    }),
  );
  return { done, ended: () => ended };
}

describe("the project setup", () => {
  it("waits for a setup that holds the checkout's lock, then runs", async () => {
    mkdirSync(path.dirname(LOCK), { recursive: true });
    // Another setup, standing in: holds the lock for four seconds.
    const holder = run("flock", [LOCK, "sleep", "4"]);
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    const setup = run("bash", ["scripts/setup.sh"]);
    await new Promise((r) => setTimeout(r, 2000));
    expect(holder.ended()).toBe(false);
    expect(setup.ended()).toBe(false);
    expect(await holder.done).toBe(0);
    expect(await setup.done).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
  });
});
