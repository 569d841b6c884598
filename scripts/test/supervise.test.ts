/**
 * The supervisor `npm start` keeps the runner alive with (scripts/lib/supervise.ts): a child
 * killed from outside is started again, each time after a longer wait, with a loud line, what
 * the dead child spawned is killed first, and after stop() nothing comes back.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { supervise, type Supervisor } from "../lib/supervise.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A child in its own group that also spawns a grandchild (its pid on the first line). */
function startSleeper(): ChildProcess {
  return spawn(
    process.execPath,
    [
      "-e",
      `const c = require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
       console.log(c.pid); setInterval(() => {}, 1000);`,
    ],
    { detached: true, stdio: ["ignore", "pipe", "ignore"] },
  );
}

/** Whether `pid` is a live process (a zombie waiting for its reaper is not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms: number): Promise<number> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await sleep(20);
  }
  return Date.now() - t0;
}

let sup: Supervisor | null = null;
afterEach(() => sup?.stop());

describe("supervise", () => {
  it("restarts a killed child with growing backoff, a loud line each time, and kills what it left", async () => {
    const lines: string[] = [];
    const started: ChildProcess[] = [];
    const grandchildren: number[] = [];
    let cleanups = 0;
    sup = supervise({
      label: "the sleeper",
      log: (l) => lines.push(l),
      initialMs: 200,
      maxMs: 1_000,
      start: () => {
        const c = startSleeper();
        c.stdout!.once("data", (b: Buffer) => grandchildren.push(Number(b.toString().trim())));
        return c;
      },
      onStart: (c) => started.push(c),
      beforeRestart: () => {
        cleanups++;
      },
    });
    await until(() => grandchildren.length === 1, 5_000);
    const first = sup.current();
    expect(started).toEqual([first]);

    process.kill(first.pid!, "SIGKILL");
    await until(() => started.length === 2, 5_000);
    await until(() => !alive(grandchildren[0]!), 2_000);
    expect(cleanups).toBe(1);
    expect(lines[0]).toMatch(
      /^!!! the sleeper exited \(signal SIGKILL\); restarting it in 0\.2 s \(restart 1\)$/,
    );

    await until(() => grandchildren.length === 2, 5_000);
    const t0 = Date.now();
    process.kill(sup.current().pid!, "SIGKILL");
    await until(() => started.length === 3, 5_000);
    // The second wait is twice the first.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(380);
    expect(lines[1]).toMatch(/restarting it in 0\.4 s \(restart 2\)$/);
    expect(sup.restarts()).toBe(2);
    expect(sup.current()).toBe(started[2]);
    expect(sup.current().exitCode).toBeNull();
  });

  it("starts nothing after stop()", async () => {
    let starts = 0;
    sup = supervise({
      label: "the sleeper",
      log: () => {},
      initialMs: 50,
      start: () => {
        starts++;
        return startSleeper();
      },
    });
    const child = sup.current();
    sup.stop();
    await until(() => child.exitCode !== null || child.signalCode !== null, 5_000);
    await sleep(300);
    expect(starts).toBe(1);
  });
});
