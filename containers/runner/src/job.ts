/**
 * @module runner/job
 * One run as a state machine: ready → primed (workspace, budget) → executed (the scan and, at the
 * same time, every test in its own sandbox), cleanup() always in `finally`; generated tests are chosen by
 * run/generator-selection.ts, the report built by run/report.ts. Invariants: limits are only ever
 * lowered; every manifest test is in the report exactly once; a sandbox that cannot start makes
 * the run an infrastructure error (nothing runs unsandboxed); no test starts after the budget;
 * the generated tests' draw is seeded by the platform's draw key over the bundle, never by the
 * submission's bytes (the archive's sha256 only checks and names the artifact).
 */
import { randomBytes } from "node:crypto";
import { chownSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  resolveManifestSplit,
  type GeneratedTestSpec,
  type GenerationReport,
  type RunLimits,
  type RunReport,
  type RunBudget,
  type Runtime,
} from "@bouts/contracts";
import { describeUnpackError, type UnpackError } from "./archive/unpack.ts";
import { deriveDrawSeed, UNKEYED_DRAW_KEY } from "@bouts/adversarial";
import type { PreparedChallenge } from "./challenge/bundle.ts";
import type { RunnerConfig } from "./config.ts";
import { resolveRunLimits, resolveUnpackLimits, type LimitAboveCeiling } from "./job-limits.ts";
import { err, ok, type Result } from "@bouts/result";
import type { TestJudgement } from "./run/analyze.ts";
import { buildBridgeDescriptor, writeBridgeModule } from "./run/bridge-files.ts";
import { hashTree } from "./run/files.ts";
import { FailFastRule, resolveRunBudget, resolveScanDeadline } from "./run/budget.ts";
import { selectGeneratedTests, type GenerationMode } from "./run/generator-selection.ts";
import { buildRunReport, type PlannedTest } from "./run/report.ts";
import { SubjectHost, type SubjectEvidence } from "./run/subject.ts";
import { runSuite } from "./run/suite.ts";
import { buildWorkspace, type Workspace } from "./run/workspace.ts";
import type { CgroupSupport } from "./sandbox/cgroup.ts";
import {
  computeScratchCaps,
  SCRATCH_DESTS,
  scratchMountOptions,
  WRITABLE_MOUNT_CAP_BYTES,
} from "./sandbox/sandbox.ts";
import { mountScratchDir, unmountScratchDir } from "./sandbox/scratch-mount.ts";
import { watchScratchMounts, type WatchedMount } from "./run/disk-watch.ts";
import type { RuntimePaths } from "./sandbox/runtime.ts";
import { killTasksOf, type UidPool } from "./sandbox/uid-pool.ts";
import { runScanStep } from "./run/scan-step.ts";
import { resolveInstaller } from "./challenge/prepare-options.ts";
import type { InstallError } from "./deps/install.ts";
import {
  prepareSubmissionDependencies,
  summarizeDependencies,
  type SubmissionDependencies,
} from "./deps/submission.ts";

export { resolveRunLimits, resolveUnpackLimits };

/** Job lifecycle states. */
export type JobState = "ready" | "primed" | "executed" | "cleaned";

/** Expected failures of a job (the submission's own failures are verdicts, not errors). */
export type JobError =
  | { reason: "invalid-state"; state: JobState; action: "prime" | "execute" }
  | { reason: "submission-rejected"; error: UnpackError; message: string }
  | InstallError
  | LimitAboveCeiling;

/** Everything a job needs; `environment` is shared by all jobs of a runner process. */
export interface JobContext {
  runId: string;
  challenge: PreparedChallenge;
  submission: Uint8Array;
  submissionSha256: string;
  /**
   * The platform's draw key for this bundle (64 hex; `deriveBundleDrawKey`): seeds which
   * generated tests are drawn. Absent: the public UNKEYED_DRAW_KEY (local runs, the CLI).
   */
  drawKey?: string;
  requestedLimits: Partial<RunLimits>;
  environment: RunnerEnvironment;
  /** Called after each test, e.g. for progress output. */
  onTest?: (id: string, judgement: TestJudgement) => void;
  /** Generated adversarial tests (run/generator-selection.ts); "select" when absent. */
  generation?: GenerationMode;
  /** False for runs whose report is read only for test verdicts (challenge QA): no scan. */
  scan?: boolean;
}

/** Per-process runner state shared by all jobs. */
export interface RunnerEnvironment {
  config: RunnerConfig;
  paths: RuntimePaths;
  cgroups: CgroupSupport | null;
  uidPool: UidPool;
  runtimeVersions: Record<Runtime, string>;
}

/** What the test phase measured, for the report. */
interface TestPhase {
  tests: PlannedTest[];
  judgements: Map<string, TestJudgement>;
  infrastructure: RunReport["infrastructure"];
  subjectEvidence: SubjectEvidence;
  /** What the private tests' own subject produced (empty without a split). */
  privateEvidence: SubjectEvidence;
  privateIds: ReadonlySet<string>;
  failFast: FailFastRule;
  testsMs: number;
}

/** One run of one submission against one prepared challenge. */
export class RunJob {
  #state: JobState = "ready";
  #workspace: Workspace | null = null;
  #limits: RunLimits | null = null;
  #budgetSource: RunBudget["source"] = "derived";
  #unpackMs = 0;
  #primeMs = 0;
  #generated: { tests: GeneratedTestSpec[]; report: GenerationReport } | null = null;
  #filesSha256: string | null = null;
  #files: { path: string; sha256: string }[] | null = null;
  /** The submission's own installed dependencies, when it brings any (its subject mounts them). */
  #dependencies: SubmissionDependencies | null = null;
  readonly #ctx: JobContext;
  readonly #runDir: string;
  readonly #startedAt = new Date();

  constructor(ctx: JobContext) {
    this.#ctx = ctx;
    // An opaque folder name: the run id is not a sandbox's business (mountinfo shows the
    // workspace's source path).
    this.#runDir = path.join(
      ctx.environment.config.WORK_DIR,
      "runs",
      randomBytes(16).toString("hex"),
    );
  }

  get state(): JobState {
    return this.#state;
  }

  /**
   * Resolves limits, builds the workspace and fixes the run's wall budget (run/budget.ts), which
   * covers the scan and the tests; ready → primed.
   */
  async prime(): Promise<Result<RunLimits, JobError>> {
    if (this.#state !== "ready")
      return err({ reason: "invalid-state", state: this.#state, action: "prime" });
    const { config } = this.#ctx.environment;
    const limits = resolveRunLimits(
      config,
      this.#ctx.challenge.manifest.limits,
      this.#ctx.requestedLimits,
    );
    if (!limits.ok) return limits;
    const t0 = performance.now();
    try {
      return await this.#prime(limits.value);
    } finally {
      this.#primeMs = performance.now() - t0;
    }
  }

  async #prime(resolved: RunLimits): Promise<Result<RunLimits, JobError>> {
    const { config } = this.#ctx.environment;
    const t0 = performance.now();
    const ws = await buildWorkspace(
      this.#runDir,
      this.#ctx.submission,
      this.#ctx.challenge.root,
      this.#ctx.challenge.manifest,
      resolveUnpackLimits(config),
    );
    this.#unpackMs = performance.now() - t0;
    if (!ws.ok) {
      return err({
        reason: "submission-rejected",
        error: ws.error,
        message: describeUnpackError(ws.error),
      });
    }
    this.#workspace = ws.value;
    // The submission's own dependencies, installed in a sandbox of their own before any of its
    // code runs (deps/submission.ts); a refusal is the submission's, with no test run.
    const deps = await prepareSubmissionDependencies(
      ws.value.submissionDir,
      this.#ctx.challenge.manifest,
      resolveInstaller(this.#ctx.environment),
    );
    if (!deps.ok) return deps;
    this.#dependencies = deps.value;
    // "The code" is the files the run uses, however they were packed (docs/design.md §31).
    const tree = await hashTree(ws.value.submissionDir, config.MAX_EXPANDED_BYTES);
    this.#filesSha256 = tree?.sha256 ?? null;
    this.#files = tree?.files ?? null;
    this.#generated = await this.#generate(ws.value);
    const budget = resolveRunBudget({
      ceilingMs: resolved.runWallMs,
      requestedMs: this.#ctx.requestedLimits.runWallMs,
      challengeMs: this.#ctx.challenge.manifest.limits.runWallMs,
      derived: {
        tests: this.#listTests().length,
        testTimeoutMs: resolved.testTimeoutMs,
        scanDeadlineMs: config.SCAN_DEADLINE_MS,
      },
    });
    this.#budgetSource = budget.source;
    this.#limits = { ...resolved, runWallMs: budget.limitMs };
    this.#state = "primed";
    return ok(this.#limits);
  }

  /**
   * The tests this run executes, in order: static, pre-built adversarial, generated; on a split
   * challenge the private static and pre-built tests come after all of them (#test runs them
   * against a subject of their own).
   */
  #listTests(): PlannedTest[] {
    const { manifest } = this.#ctx.challenge;
    const generated = this.#generated?.tests ?? [];
    const onlyGenerated =
      typeof this.#ctx.generation === "object" && this.#ctx.generation.onlyGenerated;
    const all: PlannedTest[] = [
      ...(onlyGenerated
        ? []
        : manifest.staticTests.map((t) => ({ ...t, kind: "static" as const }))),
      ...(onlyGenerated
        ? []
        : manifest.adversarialTests.map((t) => ({ ...t, kind: "adversarial" as const }))),
      ...generated.map((t) => ({ ...t, kind: "generated" as const })),
    ];
    const held = this.#privateIds();
    const isPrivate = (t: PlannedTest) => t.kind !== "generated" && held.has(t.id);
    return [...all.filter((t) => !isPrivate(t)), ...all.filter(isPrivate)];
  }

  /** Selects this run's generated tests and writes them after the pristine tests. */
  async #generate(
    ws: Workspace,
  ): Promise<{ tests: GeneratedTestSpec[]; report: GenerationReport }> {
    const keyed = this.#ctx.drawKey !== undefined;
    const seed = await deriveDrawSeed(
      this.#ctx.drawKey ?? UNKEYED_DRAW_KEY,
      this.#ctx.challenge.sha256,
    );
    const { suite, tests, report } = await selectGeneratedTests(this.#ctx.generation ?? "select", {
      manifest: this.#ctx.challenge.manifest,
      sources: ws.sources,
      seed,
      keyed,
    });
    if (suite) {
      // Host-written after the pristine tests were laid down: the submission cannot plant these.
      for (const f of suite.files) {
        const target = path.join(ws.trustedDir, "tests", f.path);
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, f.content, { flag: "w" });
      }
    }
    return { tests, report };
  }

  /**
   * Scans and runs every test, at the same time; primed → executed. Refuses unless primed. The
   * scan reads the submission's own copy (runs/<id>/submission) and the tests run the work copy in
   * sandboxes, so neither waits for the other: the run takes the longer of the two, not their
   * sum. The scan keeps its own deadline; the run's budget (its deadline) covers both.
   */
  async execute(): Promise<Result<RunReport, JobError>> {
    if (this.#state !== "primed" || !this.#workspace || !this.#limits || !this.#generated) {
      return err({ reason: "invalid-state", state: this.#state, action: "execute" });
    }
    this.#state = "executed";
    const ws = this.#workspace;
    const limits = this.#limits;
    const generation = this.#generated.report;
    const { manifest } = this.#ctx.challenge;
    const env = this.#ctx.environment;
    const tTotal = performance.now();
    const deadline = Date.now() + limits.runWallMs;
    const scanDeadlineMs = resolveScanDeadline(env.config.SCAN_DEADLINE_MS, limits.runWallMs);

    const stopScan = new AbortController();
    const scanning = this.#scan(ws, scanDeadlineMs, stopScan.signal);
    let tested: TestPhase;
    try {
      tested = await this.#test(ws, limits, deadline);
    } catch (e) {
      // Never leave the scan reading a folder cleanup() is about to remove.
      stopScan.abort();
      await scanning;
      throw e;
    }
    const { scan, scanMs } = await scanning;

    const spentMs = performance.now() - tTotal;
    const report = buildRunReport({
      runId: this.#ctx.runId,
      manifest,
      bundleSha256: this.#ctx.challenge.sha256,
      submissionSha256: this.#ctx.submissionSha256,
      filesSha256: this.#filesSha256,
      files: this.#files,
      runtimeVersion: env.runtimeVersions[manifest.runtime],
      limits,
      budgetSource: this.#budgetSource,
      scanDeadlineMs,
      tests: tested.tests,
      judgements: tested.judgements,
      infrastructure: tested.infrastructure,
      subject: tested.subjectEvidence,
      privateSubject: tested.privateEvidence,
      privateIds: tested.privateIds,
      workspace: ws,
      scan,
      dependencies: summarizeDependencies(
        this.#dependencies?.set ?? this.#ctx.challenge.dependencies,
        this.#dependencies ? "submission" : "challenge",
      ),
      generation,
      failFast: {
        tripped: tested.failFast.tripped,
        failedAfterTrip: tested.failFast.failedAfterTrip,
      },
      timings: {
        startedAt: this.#startedAt.toISOString(),
        unpackMs: this.#unpackMs,
        scanMs,
        testsMs: tested.testsMs,
        totalMs: this.#primeMs + spentMs,
        spentMs,
      },
    });
    return ok(report);
  }

  /** The security scan of the submission's own copy; never rejects (a failure is `unavailable`). */
  #scan(ws: Workspace, timeoutMs: number, signal: AbortSignal) {
    return runScanStep({
      submissionDir: ws.submissionDir,
      manifest: this.#ctx.challenge.manifest,
      config: this.#ctx.environment.config,
      skip:
        typeof this.#ctx.generation === "object" && this.#ctx.generation.onlyGenerated
          ? "not scanned: this run only checks generated tests"
          : this.#ctx.scan === false
            ? "not scanned: challenge QA judges only test verdicts"
            : null,
      dependencies: this.#dependencies?.set ?? null,
      timeoutMs,
      signal,
    });
  }

  /**
   * The test phase: the subject, the bridge and every test in its trusted process. On a split
   * challenge (docs/design.md §29) the private tests run last, against a subject incarnation of
   * their own (a fresh process that never served a public test), and what that incarnation
   * produced is kept apart (`privateEvidence`): no public test runs after a private input was
   * seen, and the score role can leave all of it out of the public part.
   */
  async #test(ws: Workspace, limits: RunLimits, deadline: number): Promise<TestPhase> {
    const { manifest, depsLayer } = this.#ctx.challenge;
    // The subject runs on its own dependencies when it brings them, the tests on the challenge's.
    const subjectDepsLayer = this.#dependencies?.tree.layer ?? depsLayer;
    const env = this.#ctx.environment;
    const tests = this.#listTests();
    const privateIds = this.#privateIds();
    const phases = [
      tests.filter((t) => t.kind === "generated" || !privateIds.has(t.id)),
      tests.filter((t) => t.kind !== "generated" && privateIds.has(t.id)),
    ];
    const failFast = new FailFastRule();
    const judgements = new Map<string, TestJudgement>();
    let infrastructure: RunReport["infrastructure"] = null;
    const subjectEvidence = emptyEvidence();
    const privateEvidence = emptyEvidence();
    const tTests = performance.now();
    // Two uids: the subject's and the trusted tests', so neither can count against, signal or
    // read the other's processes.
    const lease = await env.uidPool.acquire();
    const iface = manifest.interface!;
    const shared = {
      runtime: manifest.runtime,
      paths: env.paths,
      bwrapBin: env.config.BWRAP_BIN,
      cgroups: env.cgroups,
      channelDir: ws.channelDir,
      depsLayer,
      limits,
      runDeadline: deadline,
      name: this.#ctx.runId,
    };
    // The subject's /tmp and /dev/shm are capped tmpfs mounts the run holds on host folders
    // (not bwrap's own), so the host can see it fill one (docs/runner.md, "Disk caps").
    const caps = computeScratchCaps(limits, 1);
    const scratch = SCRATCH_DESTS.map((dest) => ({
      dest,
      dir: path.join(this.#runDir, `subject${dest.replaceAll("/", "-")}`),
      capBytes: scratchMountOptions(dest, caps, lease.uid).capBytes,
    }));
    const watched: WatchedMount[] = [
      ...scratch,
      { dest: "/chan", dir: ws.channelDir, capBytes: WRITABLE_MOUNT_CAP_BYTES },
    ];
    let watch: { stop(): string[] } | null = null;
    let subject: SubjectHost | null = null;
    /** One phase: a subject of its own, the bridge from its exports, and the phase's tests. */
    let publicLoadError: string | null = null;
    /**
     * The private tests when the run has already given up on the submission (fail-fast tripped,
     * or its module did not load): they fail at once, without starting a subject whose start-up
     * could cost another test's limit (a busy loop at import).
     */
    const failPrivateAtOnce = (phaseTests: PlannedTest[]): boolean => {
      const why = failFast.tripped
        ? `the run gave up on the subject: ${failFast.tripped.reason}`
        : publicLoadError !== null
          ? `the submission's module failed to load: ${publicLoadError}`
          : null;
      if (why === null) return false;
      for (const t of phaseTests) {
        failFast.record(t.id, "not run");
        const j: TestJudgement = {
          status: "failed",
          durationMs: 0,
          message: `not run: ${why}`.slice(0, 2000),
          crashes: [],
          warnings: [],
          integrity: [],
          exploits: [],
        };
        judgements.set(t.id, j);
        this.#ctx.onTest?.(t.id, j);
      }
      return true;
    };
    const runPhase = async (phaseTests: PlannedTest[], part: "public" | "private") => {
      if (part === "private" && failPrivateAtOnce(phaseTests)) return;
      const host = new SubjectHost({
        ...shared,
        depsLayer: subjectDepsLayer,
        name: part === "public" ? this.#ctx.runId : `${this.#ctx.runId}-private`,
        hostUid: lease.uid,
        workspace: ws.workDir,
        module: iface.module,
        scratchMounts: scratch.map((m) => ({ src: m.dir, dest: m.dest })),
      });
      subject = host;
      try {
        const started = await host.start();
        if (!started.ok) {
          infrastructure ??= {
            reason: "sandbox-unavailable",
            message: started.message.slice(0, 2000),
          };
          return;
        }
        writeBridgeModule(
          ws.trustedDir,
          manifest.runtime,
          iface,
          buildBridgeDescriptor(host.exports, iface, manifest.runtime),
        );
        const suite = await runSuite(phaseTests, {
          ...shared,
          hostUid: lease.secondUid,
          workspace: ws.trustedDir,
          subject: host,
          onTest: this.#ctx.onTest,
          failFast,
        });
        for (const [id, j] of suite.judgements) judgements.set(id, j);
        if (suite.infrastructure)
          infrastructure ??= {
            reason: "sandbox-unavailable",
            message: suite.infrastructure.slice(0, 2000),
          };
      } finally {
        subject = null;
        await host.close();
        const into = part === "public" ? subjectEvidence : privateEvidence;
        mergeEvidence(into, host.evidence);
        if (host.loadError !== null) {
          into.crashes.push(`the submission's module failed to load: ${host.loadError}`);
          if (part === "public") publicLoadError = host.loadError;
        }
      }
    };
    try {
      chownSync(ws.channelDir, lease.uid, lease.uid);
      // /chan is one capped tmpfs for the whole run: the subject and every trusted test
      // process share it, across subject restarts (docs/runner.md, "Disk caps").
      const capped = await mountScratchDirs([
        [ws.channelDir, scratchMountOptions("/chan", caps, lease.uid)],
        ...scratch.map((m) => {
          mkdirSync(m.dir, { mode: 0o755 });
          return [m.dir, scratchMountOptions(m.dest, caps, lease.uid)] as const;
        }),
      ]);
      if (!capped.ok) {
        infrastructure = {
          reason: "sandbox-unavailable",
          message: `${capped.error.reason}: ${capped.error.detail}`.slice(0, 2000),
        };
      } else {
        watch = watchScratchMounts(watched);
        if (phases[0]!.length > 0) await runPhase(phases[0]!, "public");
        if (phases[1]!.length > 0 && !infrastructure && deadline - Date.now() > 0)
          await runPhase(phases[1]!, "private");
      }
    } finally {
      // Released on every path, whatever closing a subject or reading its evidence does: a
      // run that cannot give back its uid slot and mounts takes the runner down with it.
      try {
        await (subject as SubjectHost | null)?.close();
        const full = watch?.stop() ?? [];
        watch = null;
        subjectEvidence.warnings.push(...full);
      } finally {
        watch?.stop();
        for (const m of watched) await unmountScratchDir(m.dir);
        killTasksOf([lease.uid, lease.secondUid]);
        lease.release();
      }
    }
    const testsMs = performance.now() - tTests;

    return {
      tests,
      judgements,
      infrastructure,
      subjectEvidence,
      privateEvidence,
      privateIds,
      failFast,
      testsMs,
    };
  }

  /** The ids of the challenge's private tests (§29); empty without a split. */
  #privateIds(): ReadonlySet<string> {
    const split = resolveManifestSplit(this.#ctx.challenge.manifest);
    return new Set(split?.privateIds ?? []);
  }

  /** Removes the run's folders; safe in any state and idempotent. rmSync never follows links. */
  async cleanup(): Promise<void> {
    // A run that ended early may still hold its mounts; the folders cannot go before them.
    for (const dir of ["chan", ...SCRATCH_DESTS.map((d) => `subject${d.replaceAll("/", "-")}`)])
      await unmountScratchDir(path.join(this.#runDir, dir));
    rmSync(this.#runDir, { recursive: true, force: true });
    this.#state = "cleaned";
  }
}

function emptyEvidence(): SubjectEvidence {
  return { crashes: [], warnings: [], integrity: [], exploits: [] };
}

function mergeEvidence(into: SubjectEvidence, from: SubjectEvidence): void {
  into.crashes.push(...from.crashes);
  into.warnings.push(...from.warnings);
  into.integrity.push(...from.integrity);
  into.exploits.push(...from.exploits);
}

/** Mounts each capped tmpfs in turn; the first failure undoes the ones before it. */
async function mountScratchDirs(
  mounts: readonly (readonly [string, Parameters<typeof mountScratchDir>[1]])[],
): ReturnType<typeof mountScratchDir> {
  const done: string[] = [];
  for (const [dir, opts] of mounts) {
    const r = await mountScratchDir(dir, opts);
    if (!r.ok) {
      for (const d of done) await unmountScratchDir(d);
      return r;
    }
    done.push(dir);
  }
  return ok(undefined);
}

/** Runs a job through its whole lifecycle with cleanup() in finally. */
export async function runJob(ctx: JobContext): Promise<Result<RunReport, JobError>> {
  const job = new RunJob(ctx);
  try {
    const primed = await job.prime();
    if (!primed.ok) return primed;
    return await job.execute();
  } finally {
    await job.cleanup();
  }
}
