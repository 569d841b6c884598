/**
 * `npm run bench -- scan [challenge …] [--reps N]`: the security scan time of each example
 * challenge's submissions (challenges/<name>/submissions/<kind>) with the real scanners (Semgrep
 * from the project venv, ESLint in-process), one `name: value` line each: per submission (median
 * of N), per challenge, the median over every scan, each tool alone, and the median again while a
 * CPU-bound process runs beside the scans. Figures: docs/benchmarks.md, "scan".
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runEslint } from "../../containers/runner/src/scan/eslint.ts";
import { scanSubmission } from "../../containers/runner/src/scan/index.ts";
import { runSemgrep } from "../../containers/runner/src/scan/semgrep.ts";
import { collectTargets, DEFAULT_TARGET_LIMITS } from "../../containers/runner/src/scan/targets.ts";

const CHALLENGES = path.resolve(import.meta.dirname, "../../challenges");
const DEFAULT_REPS = 5;

interface Submission {
  name: string;
  kind: string;
  dir: string;
  runtime: "node" | "python";
}

export default async function (args: string[]): Promise<void> {
  const repsAt = args.indexOf("--reps");
  const reps = repsAt >= 0 ? Number(args[repsAt + 1]) : DEFAULT_REPS;
  const only = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--reps");
  if (!existsSync(CHALLENGES) || !Number.isInteger(reps) || reps < 1) {
    console.error(`bench scan: needs ${CHALLENGES} and --reps N with N ≥ 1`);
    process.exitCode = 1;
    return;
  }
  const subs = listSubmissions(only);
  console.log(`scan_reps: ${reps}`);

  // Round-robin over the submissions, so a passing burst of load spreads over all of them.
  const times = new Map<Submission, number[]>(subs.map((s) => [s, []]));
  const last = new Map<Submission, string>();
  for (let r = 0; r < reps; r++) {
    for (const s of subs) {
      const started = performance.now();
      const report = await scanSubmission(s.dir, { runtime: s.runtime });
      times.get(s)!.push(performance.now() - started);
      last.set(s, `${report.status}, ${report.findings.length} findings`);
    }
  }
  const totals = new Map<string, number>();
  for (const s of subs) {
    const ms = median(times.get(s)!);
    totals.set(s.name, (totals.get(s.name) ?? 0) + ms);
    console.log(`scan_ms.${s.name}.${s.kind}: ${ms.toFixed(0)} (${last.get(s)})`);
  }
  for (const [name, total] of totals) console.log(`scan_ms.${name}: ${total.toFixed(0)}`);
  console.log(`scan_ms_p50: ${median([...times.values()].flat()).toFixed(0)}`);

  // Each tool alone, over the same scratch copies the scan makes.
  const semgrepMs: number[] = [];
  const eslintMs: number[] = [];
  for (let r = 0; r < reps; r++) {
    for (const s of subs) {
      const scratchDir = await mkdtemp(path.join(tmpdir(), "bouts-bench-scan-"));
      try {
        const { targets } = await collectTargets(s.dir, scratchDir, DEFAULT_TARGET_LIMITS);
        const signal = new AbortController().signal;
        let t = performance.now();
        await runSemgrep({ scratchDir, targets, perFileTimeoutSec: 10, signal });
        semgrepMs.push(performance.now() - t);
        t = performance.now();
        await runEslint({ scratchDir, targets, signal });
        eslintMs.push(performance.now() - t);
      } finally {
        await rm(scratchDir, { recursive: true, force: true });
      }
    }
  }
  console.log(`semgrep_ms_p50: ${median(semgrepMs).toFixed(0)}`);
  console.log(`eslint_ms_p50: ${median(eslintMs).toFixed(0)}`);

  // The same scans with one CPU-bound process beside them (as a run's tests would be).
  const burner = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  try {
    const loaded: number[] = [];
    for (let r = 0; r < reps; r++) {
      for (const s of subs) {
        const started = performance.now();
        await scanSubmission(s.dir, { runtime: s.runtime });
        loaded.push(performance.now() - started);
      }
    }
    console.log(`scan_ms_p50_loaded: ${median(loaded).toFixed(0)}`);
  } finally {
    burner.kill("SIGKILL");
  }
}

function listSubmissions(only: string[]): Submission[] {
  const out: Submission[] = [];
  const names = readdirSync(CHALLENGES)
    .filter((n) => existsSync(path.join(CHALLENGES, n, "submissions")))
    .filter((n) => only.length === 0 || only.includes(n))
    .sort();
  for (const name of names) {
    const manifest = JSON.parse(
      readFileSync(path.join(CHALLENGES, name, "challenge.json"), "utf8"),
    ) as { runtime?: string };
    const runtime = manifest.runtime?.startsWith("python") ? "python" : "node";
    const subs = path.join(CHALLENGES, name, "submissions");
    for (const kind of readdirSync(subs).sort()) {
      out.push({ name, kind, dir: path.join(subs, kind), runtime });
    }
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
