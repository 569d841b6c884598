/**
 * `npm run bench -- start`: wall time of `npm start` from the command to its `ready:` line (every
 * example challenge published), cold (fresh state and QA cache), warm (restart on that state) and
 * on a fresh state with the QA cache kept. Invariants: private ports, uids, state, QA cache,
 * credentials and runner work dir (a temporary folder, removed after its scratch mounts are
 * unmounted); each start is stopped
 * (its process group) before the next begins; a start that does not publish everything fails.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sweepScratchMounts } from "../../containers/runner/src/sandbox/scratch-mount.ts";
import { ROOT } from "../lib/local-platform.ts";

const PORT = Number(process.env.BENCH_PORT ?? 8797);
const RUNNER_PORT = Number(process.env.BENCH_RUNNER_PORT ?? 8090);
const UID_BASE = process.env.RUNNER_UID_BASE ?? "64000";
const TIMEOUT_MS = 15 * 60_000;
const READY = /\] ready: (\d+) of (\d+) challenges published/;
const QA_RAN = /\] (\S+): QA passed \(ran in ([\d.]+) s\)/;

/** One `npm start` until ready; resolves with its wall time and each QA's own time, then stops it. */
function timeStart(
  dir: string,
  stateName: string,
  log: (line: string) => void,
): Promise<{ ms: number; qaMs: Map<string, number> }> {
  const t0 = performance.now();
  const child = spawn("npm", ["start"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      BOUTS_PORT: String(PORT),
      RUNNER_PORT: String(RUNNER_PORT),
      RUNNER_UID_BASE: UID_BASE,
      BOUTS_STATE_DIR: path.join(dir, stateName),
      BOUTS_QA_CACHE_DIR: path.join(dir, "qa-cache"),
      BOUTS_CREDENTIALS: path.join(dir, "credentials.json"),
      RUNNER_WORK_DIR: path.join(dir, "runner"),
    },
  });
  const qaMs = new Map<string, number>();
  return new Promise((resolve, reject) => {
    let pending = "";
    let done: { ms: number; published: string; total: string } | null = null;
    const stop = () => {
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`npm start was not ready within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        log(line);
        const qa = QA_RAN.exec(line);
        if (qa) qaMs.set(qa[1]!, Math.round(Number(qa[2]) * 1000));
        const ready = READY.exec(line);
        if (!ready || done) continue;
        done = { ms: Math.round(performance.now() - t0), published: ready[1]!, total: ready[2]! };
        clearTimeout(timer);
        stop();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (!done) reject(new Error(`npm start exited with ${code} before it was ready`));
      else if (done.published !== done.total)
        reject(new Error(`only ${done.published} of ${done.total} challenges were published`));
      else resolve({ ms: done.ms, qaMs });
    });
  });
}

/** Waits until neither the API nor the runner answers any more, so the next start finds its ports. */
async function waitForPortsFree(): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (const url of [`http://127.0.0.1:${PORT}/healthz`, `http://127.0.0.1:${RUNNER_PORT}/healthz`])
    while (Date.now() < deadline) {
      try {
        await fetch(url, { signal: AbortSignal.timeout(1000) });
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
}

export default async function main(args: string[]): Promise<void> {
  const verbose = args.includes("--verbose");
  const dir = mkdtempSync(path.join(tmpdir(), "bouts-bench-start-"));
  // The sandbox's uids must traverse to the runner's work dir inside it.
  chmodSync(dir, 0o755);
  const log = (line: string) => {
    if (verbose || !line.startsWith("[worker]")) console.error(`  ${line}`);
  };
  try {
    const cold = await timeStart(dir, "state", log);
    await waitForPortsFree();
    const warm = await timeStart(dir, "state", log);
    await waitForPortsFree();
    const cached = await timeStart(dir, "state-fresh", log);
    await waitForPortsFree();
    console.log(`start_cold_ms: ${cold.ms}`);
    console.log(`start_warm_ms: ${warm.ms}`);
    console.log(`start_fresh_state_cached_qa_ms: ${cached.ms}`);
    for (const [slug, ms] of [...cold.qaMs].sort())
      console.log(`start_cold_qa_ms_${slug.replaceAll("-", "_")}: ${ms}`);
  } finally {
    // A run's `/chan` tmpfs can outlive a stopped runner; removing a mounted folder fails
    // (EBUSY), so the mounts under the runner's work dir go first.
    await sweepScratchMounts(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}
