/**
 * `npm run bench -- runner [iterations]`: the cost of the sandbox and of whole suites: bare against
 * sandboxed interpreter spawns (Node 22, Python 3.11), each example challenge's suite and run
 * against its reference, and hostile variants (fork bomb, busy loop) against the honest run.
 * Figures and aims: docs/benchmarks.md, "runner". Invariants: the sandbox path is the one runs
 * use; only `-e 0` / `-c 0` runs bare, and the references and hostile variants run sandboxed.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  computeSha256,
  packChallengeDir,
  packDir,
  prepareChallenge,
} from "../../containers/runner/src/challenge/bundle.ts";
import { parseRunnerConfig } from "../../containers/runner/src/config.ts";
import { createRunnerEnvironment } from "../../containers/runner/src/environment.ts";
import { runJob, type RunnerEnvironment } from "../../containers/runner/src/job.ts";
import { resolvePrepareOptions } from "../../containers/runner/src/challenge/prepare-options.ts";
import { runSandboxed } from "../../containers/runner/src/sandbox/sandbox.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Hostile code put at the top of a reference's interface module: runs at import time. */
const HOSTILE_PRELUDE: Record<"forkbomb" | "busyloop", Record<"node" | "python", string>> = {
  forkbomb: {
    // A shell fork bomb in the background, then the module loads normally.
    node: [
      'import { spawn as bombSpawn } from "node:child_process";',
      "for (let i = 0; i < 64; i++)",
      '  bombSpawn("/bin/sh", ["-c", "b(){ b|b& }; b"], { stdio: "ignore" }).on("error", () => {});',
      "",
    ].join("\n"),
    python: [
      "import os as _bomb_os",
      "if _bomb_os.fork() == 0:",
      "    while True:",
      "        try:",
      "            _bomb_os.fork()",
      "        except OSError:",
      "            pass",
      "",
    ].join("\n"),
  },
  busyloop: {
    node: "for (;;) {}\n",
    python: "while True:\n    pass\n",
  },
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Spawns `argv` with an empty environment and resolves with its wall time. */
function timeBare(argv: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { env: {}, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - t0));
  });
}

export default async function bench(args: string[]): Promise<void> {
  const iterations = Number(args[0] ?? 21);
  const workDir = mkdtempSync(path.join(tmpdir(), "bouts-bench-"));
  // RUNNER_UID_BASE is honoured so a bench never shares uids with another runner on the host.
  const cfg = parseRunnerConfig({
    RUNNER_WORK_DIR: workDir,
    RUNNER_SELF_TEST: "off",
    ...(process.env.RUNNER_UID_BASE ? { RUNNER_UID_BASE: process.env.RUNNER_UID_BASE } : {}),
  });
  if (!cfg.ok) throw new Error(cfg.error.issues.join("; "));
  const env = await createRunnerEnvironment(cfg.value);
  if (!env.ok) throw new Error(JSON.stringify(env.error));
  const { environment } = env.value;
  const { paths } = environment;
  await benchRecordFlood(environment);
  const scratch = path.join(workDir, "scratch");
  mkdirSync(scratch, { mode: 0o755 });
  const lease = await environment.uidPool.acquire();
  const limits = {
    memoryMb: 512,
    cpuSeconds: 10,
    maxProcesses: 64,
    maxOpenFiles: 256,
    maxFileSizeMb: 16,
    maxOutputBytes: 65536,
    wallMs: 10_000,
    addressSpaceMb: environment.cgroups ? null : 4096,
  };
  const cases = [
    {
      name: "node",
      bare: [paths.nodeBin, "-e", "0"],
      sandboxed: ["/opt/bouts/bin/node", "-e", "0"],
      mounts: [{ src: paths.nodeBin, dest: "/opt/bouts/bin/node" }],
    },
    {
      name: "python",
      bare: [paths.pythonBin, "-I", "-c", "0"],
      sandboxed: [paths.pythonBin, "-I", "-c", "0"],
      mounts: [],
    },
  ];
  try {
    for (const c of cases) {
      const bare: number[] = [];
      const boxed: number[] = [];
      // Interleave the two so drift in machine load hits both alike; the first round warms caches.
      for (let i = 0; i <= iterations; i += 1) {
        const b = await timeBare(c.bare);
        const t0 = performance.now();
        const o = await runSandboxed({
          bwrapBin: environment.config.BWRAP_BIN,
          hostUid: lease.uid,
          argv: c.sandboxed,
          env: { PATH: "/usr/bin:/bin", HOME: "/tmp" },
          cwd: "/work",
          readOnlyMounts: [{ src: scratch, dest: "/work" }, ...c.mounts],
          limits,
          cgroups: environment.cgroups,
          name: `bench-${process.pid}-${c.name}-${i}`,
        });
        if (!o.started || o.exitCode !== 0)
          throw new Error(`sandboxed ${c.name} failed: ${o.startError}${o.stderr}`);
        if (i === 0) continue;
        bare.push(b);
        // Whole cost, including creating and removing the cgroups.
        boxed.push(performance.now() - t0);
      }
      const mb = median(bare);
      const ms = median(boxed);
      console.log(`${c.name}_bare_spawn_median_ms: ${mb.toFixed(1)}`);
      console.log(`${c.name}_sandboxed_spawn_median_ms: ${ms.toFixed(1)}`);
      console.log(`${c.name}_sandbox_cost_ratio: ${(ms / mb).toFixed(2)}`);
      // Each round's sandboxed minus bare time: the sandbox's own fixed cost in milliseconds.
      console.log(
        `${c.name}_sandbox_overhead_median_ms: ${median(boxed.map((x, i) => x - bare[i]!)).toFixed(1)}`,
      );
      // The fastest of each is the least disturbed by other load on a shared machine.
      const lb = Math.min(...bare);
      const ls = Math.min(...boxed);
      console.log(
        `${c.name}_sandbox_cost_ratio_of_fastest: ${(ls / lb).toFixed(2)} (${ls.toFixed(1)} / ${lb.toFixed(1)} ms)`,
      );
    }
  } finally {
    lease.release();
  }
  const challengesDir = path.join(ROOT, "challenges");
  const honestWall = new Map<string, number>();
  const prepared = new Map<string, Awaited<ReturnType<typeof prepareChallenge>>>();
  const runOnce = async (id: string, submissionDir: string, runId: string) => {
    const challenge = prepared.get(id)!;
    if (!challenge.ok) throw new Error(JSON.stringify(challenge.error));
    const submission = await packDir(submissionDir);
    const t0 = performance.now();
    const r = await runJob({
      runId,
      challenge: challenge.value,
      submission,
      submissionSha256: computeSha256(submission),
      requestedLimits: {},
      environment,
    });
    const wall = performance.now() - t0;
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return { wall, report: r.value };
  };
  for (const id of readdirSync(challengesDir).sort()) {
    const dir = path.join(challengesDir, id);
    const bundle = await packChallengeDir(dir);
    prepared.set(
      id,
      await prepareChallenge(bundle, { ...resolvePrepareOptions(environment), workDir }),
    );
    const { wall, report } = await runOnce(id, path.join(dir, "reference"), `bench-${id}`);
    honestWall.set(id, wall);
    const tests = report.staticTests.length + report.adversarialTests.length;
    const name = id.replaceAll("-", "_");
    // The test phase alone (subject + trusted test processes), then the whole run with the scan.
    console.log(`suite_ms_${name}: ${report.timings.testsMs}`);
    console.log(
      `challenge_${name}_suite_wall_ms: ${Math.round(wall)} (${tests} tests, ${Math.round(report.timings.testsMs / tests)} ms/test, scan ${report.timings.scanMs} ms)`,
    );
  }
  const hostileTargets = [
    { lang: "node" as const, id: "deep-merge" },
    { lang: "python" as const, id: "bill-split-py" },
  ];
  for (const kind of ["forkbomb", "busyloop"] as const) {
    for (const { lang, id } of hostileTargets) {
      const dir = path.join(challengesDir, id);
      const manifest = JSON.parse(readFileSync(path.join(dir, "challenge.json"), "utf8")) as {
        interface: { module: string };
      };
      const sub = mkdtempSync(path.join(workDir, `hostile-${kind}-${lang}-`));
      cpSync(path.join(dir, "reference"), sub, { recursive: true });
      const file = path.join(sub, manifest.interface.module);
      writeFileSync(file, HOSTILE_PRELUDE[kind][lang] + readFileSync(file, "utf8"));
      const { wall, report } = await runOnce(id, sub, `bench-${kind}-${lang}`);
      const all = [...report.staticTests, ...report.adversarialTests];
      const counts = new Map<string, number>();
      for (const t of all) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
      const honest = honestWall.get(id)!;
      console.log(`hostile_${kind}_run_ms_${lang}: ${Math.round(wall)}`);
      console.log(
        `hostile_${kind}_vs_honest_${lang}: ${(wall / honest).toFixed(2)} (${id}: honest ${Math.round(honest)} ms; ${[...counts].map(([s, n]) => `${n} ${s}`).join(", ")}; scan ${report.scan.status})`,
      );
    }
  }
}

/**
 * The runner's memory under a record flood: a submission that writes 24 observation records of
 * 16 MiB on fd 3 at import (containers/runner/test/exploits/record-flood). The runner's resident
 * set is sampled every 2 ms during the run; the kernel's high-water mark is read too, and the
 * larger of the two deltas is printed (aim ≤ 64 MiB; the records once cost +1.2 GiB).
 */
async function benchRecordFlood(environment: RunnerEnvironment): Promise<void> {
  const runnerDir = path.join(ROOT, "containers/runner");
  const bundle = await packChallengeDir(path.join(runnerDir, "test/fixtures/exploit-node"));
  const challenge = await prepareChallenge(bundle, resolvePrepareOptions(environment));
  if (!challenge.ok) throw new Error(JSON.stringify(challenge.error));
  const submission = await packDir(path.join(runnerDir, "test/exploits/record-flood"));
  const before = process.memoryUsage.rss();
  const hiBefore = process.resourceUsage().maxRSS * 1024;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
  const t0 = performance.now();
  const r = await runJob({
    runId: `bench-record-flood-${process.pid}`,
    challenge: challenge.value,
    submission,
    submissionSha256: computeSha256(submission),
    requestedLimits: {},
    environment,
  });
  const wall = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  const hiAfter = process.resourceUsage().maxRSS * 1024;
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  // The high-water mark only says something when the flood raised it above the earlier peak.
  const delta = Math.max(peak - before, hiAfter > hiBefore ? hiAfter - before : 0);
  console.log(`record_flood_peak_rss_delta_mb: ${(delta / (1024 * 1024)).toFixed(1)}`);
  console.log(`record_flood_run_ms: ${Math.round(wall)}`);
}
