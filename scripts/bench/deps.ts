/**
 * `npm run bench -- deps [--reps N]`: what dependencies cost a run (docs/dependencies.md).
 * Against a local fixture registry on 127.0.0.1 (@bouts/fixtures) serving 40 packages of
 * ~64 KiB each, it prints one `name: value` line each:
 *  - the cold install of their lock in the install sandbox (proxy, npm ci, copy, checks);
 *  - the warm overhead per run: a submission folder's lockfile read, checked against the policy
 *    and found installed (what a run pays for a lock installed before), median of N (goal ≤ 300);
 *  - the advisory lookup of a 200-package lockfile against the shipped snapshot (median of N),
 *    and the snapshot's one-time load.
 * Figures: docs/benchmarks.md, "deps".
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildNpmProject, buildPackage, startLocalNpmRegistry } from "@bouts/fixtures";
import { ChallengeManifestSchema } from "@bouts/contracts";
import { resolveInstaller } from "../../containers/runner/src/challenge/prepare-options.ts";
import { parseRunnerConfig } from "../../containers/runner/src/config.ts";
import { installNpmDependencies } from "../../containers/runner/src/deps/install.ts";
import { prepareSubmissionDependencies } from "../../containers/runner/src/deps/submission.ts";
import { createRunnerEnvironment } from "../../containers/runner/src/environment.ts";
import {
  loadShippedSnapshot,
  matchAdvisories,
  type AdvisoryPackage,
} from "../../containers/runner/src/scan/advisories/index.ts";
import { readNpmLock } from "@bouts/dependencies";

const PACKAGES = 40;
const PACKAGE_BYTES = 64 * 1024;
const LOOKUP_PACKAGES = 200;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function bench(args: string[]): Promise<void> {
  const repsAt = args.indexOf("--reps");
  const reps = repsAt >= 0 ? Number(args[repsAt + 1]) : 21;
  if (!Number.isInteger(reps) || reps < 1) throw new Error("--reps N with N ≥ 1");
  const packages = Array.from({ length: PACKAGES }, (_, i) =>
    buildPackage({
      name: `bench-pkg-${i}`,
      version: "1.0.0",
      files: { "index.js": "module.exports = 1;\n", "data.bin": randomBytes(PACKAGE_BYTES) },
    }),
  );
  const registry = await startLocalNpmRegistry(packages);
  const workDir = mkdtempSync(path.join(tmpdir(), "bouts-bench-deps-"));
  try {
    const cfg = parseRunnerConfig({
      RUNNER_WORK_DIR: workDir,
      RUNNER_SELF_TEST: "off",
      RUNNER_NPM_REGISTRY: registry.url,
      ...(process.env.RUNNER_UID_BASE ? { RUNNER_UID_BASE: process.env.RUNNER_UID_BASE } : {}),
    });
    if (!cfg.ok) throw new Error(cfg.error.issues.join("; "));
    const env = await createRunnerEnvironment(cfg.value);
    if (!env.ok) throw new Error(JSON.stringify(env.error));
    const { environment } = env.value;
    const installer = resolveInstaller(environment);
    mkdirSync(installer.context.cacheDir, { recursive: true, mode: 0o755 });

    const direct = Object.fromEntries(packages.map((p) => [p.name, p.version]));
    const project = buildNpmProject(direct, packages);
    const set = readNpmLock(project.manifest, project.lock);
    if (!set.ok) throw new Error(JSON.stringify(set.error));

    // Cold: nothing cached; the whole install in its sandbox.
    const lease = await environment.uidPool.acquire();
    const t0 = performance.now();
    const cold = await installNpmDependencies(
      {
        manifestText: project.manifest,
        lockText: project.lock,
        packages: set.value.packages,
        omitDev: true,
      },
      { maxInstalledBytes: 64 * 1024 * 1024, maxInstallMs: 120_000 },
      { ...installer.context, hostUid: lease.uid },
    );
    const coldMs = performance.now() - t0;
    lease.release();
    if (!cold.ok) throw new Error(JSON.stringify(cold.error));
    console.log(`deps_packages: ${PACKAGES} (${PACKAGE_BYTES / 1024} KiB each)`);
    console.log(`deps_cold_install_ms: ${coldMs.toFixed(0)} (${cold.value.bytes} bytes installed)`);

    // Warm: what a run pays for the same lock, from the submission's files to the cached tree.
    const submission = path.join(workDir, "submission");
    mkdirSync(submission);
    writeFileSync(path.join(submission, "package.json"), project.manifest);
    writeFileSync(path.join(submission, "package-lock.json"), project.lock);
    const manifest = ChallengeManifestSchema.parse({
      schemaVersion: 1,
      id: "bench-deps",
      title: "bench",
      runtime: "node22",
      testFramework: "node:test",
      staticTests: [{ id: "t", file: "t.test.mjs", name: "t", category: "functionality" }],
      dependencies: { lockfile: null, submissions: { allowed: true } },
    });
    const warm: number[] = [];
    for (let i = 0; i < reps; i++) {
      const t = performance.now();
      const r = await prepareSubmissionDependencies(submission, manifest, installer);
      warm.push(performance.now() - t);
      if (!r.ok || r.value === null || !r.value.tree.cached)
        throw new Error(`warm run not served from the cache: ${JSON.stringify(r)}`);
    }
    console.log(`deps_warm_overhead_ms_p50: ${median(warm).toFixed(1)} (goal ≤ 300)`);
    console.log(`deps_warm_overhead_ms_max: ${Math.max(...warm).toFixed(1)}`);

    // Advisory lookup: 200 packages, real names with advisories and names without.
    const t1 = performance.now();
    const snapshot = await loadShippedSnapshot();
    const loadMs = performance.now() - t1;
    if (!snapshot.ok) throw new Error(JSON.stringify(snapshot.error));
    // Half of them at a version an advisory lists (a match), half unknown to every advisory.
    const named = snapshot.value.advisories
      .flatMap((a) => a.affected)
      .filter((a) => a.versions !== undefined && a.versions.length > 0)
      .slice(0, LOOKUP_PACKAGES / 2)
      .map((a): AdvisoryPackage => ({
        ecosystem: a.ecosystem,
        name: a.package,
        version: a.versions![0]!,
      }));
    const lookup: AdvisoryPackage[] = [
      ...named,
      ...Array.from({ length: LOOKUP_PACKAGES - named.length }, (_, i) => ({
        ecosystem: "npm" as const,
        name: `no-advisory-${i}`,
        version: "1.2.3",
      })),
    ];
    const times: number[] = [];
    let matches = 0;
    for (let i = 0; i < reps; i++) {
      const t = performance.now();
      matches = matchAdvisories(lookup, snapshot.value).length;
      times.push(performance.now() - t);
    }
    console.log(`deps_snapshot_load_ms: ${loadMs.toFixed(0)} (once per runner process)`);
    console.log(
      `deps_advisory_lookup_ms_200_packages_p50: ${median(times).toFixed(1)} (${matches} matches)`,
    );
  } finally {
    await registry.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}
