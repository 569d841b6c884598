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
): { done: Promise<number | null>; ended: () => boolean; said: (text: string) => Promise<void> } {
  const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] });
  let ended = false;
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const done = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      ended = true;
      resolve(code);
    }),
  );
  const said = async (text: string) => {
    while (!out.includes(text)) {
      if (ended) throw new Error(`${command} ended without printing ${text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { done, ended: () => ended, said };
}

describe("the project setup", () => {
  it("waits for a setup that holds the checkout's lock, then runs", async () => {
    mkdirSync(path.dirname(LOCK), { recursive: true });
    // Another setup, standing in: holds the lock for four seconds once it has it (waiting for
    // its word, not a fixed delay, so a loaded machine cannot start the setup first).
    const holder = run("flock", [LOCK, "sh", "-c", "echo locked; sleep 4"]);
    await holder.said("locked");
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
