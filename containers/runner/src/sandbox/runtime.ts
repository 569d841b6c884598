/**
 * @module runner/sandbox/runtime
 * How one hidden test becomes one sandboxed process for each runtime: the interpreter, the
 * pristine harness, and the read-only mounts. Invariants: interpreters are called by absolute
 * path with a cleared environment; the workspace is mounted read-only at /work (writes go to the
 * sandbox's own /tmp); the harness and tool folders are read-only; nothing from the host's
 * home, /etc or the runner's own tree is visible.
 */
import path from "node:path";
import type { Runtime } from "@bouts/contracts";
import type { SandboxMount } from "./sandbox.ts";

/** Host paths of the interpreters and tools a sandbox mounts. */
export interface RuntimePaths {
  nodeBin: string;
  pythonBin: string;
  /** site-packages folder holding pytest. */
  pythonTools: string;
  /** containers/runner/harness on the host. */
  harnessDir: string;
}

/** One sandboxed test invocation, minus limits. */
export interface TestInvocation {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  mounts: SandboxMount[];
}

/** A test to run: its file under the tests folder and its exact name. */
export interface TestTarget {
  file: string;
  name: string;
}

export const HARNESS_ROOT = "/opt/bouts/harness";
export const WORKSPACE = "/work";
/** Folder shared by a run's subject (read-write) and its trusted test processes (read-only). */
export const CHANNEL_DIR = "/chan";
const NODE_IN_SANDBOX = "/opt/bouts/bin/node";
const PYTOOLS_IN_SANDBOX = "/opt/bouts/pytools";
const DEPS_IN_SANDBOX = "/opt/bouts/deps";

const BASE_ENV = { PATH: "/usr/bin:/bin", HOME: "/tmp", TMPDIR: "/tmp", LANG: "C.UTF-8" };

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The name the harness reports for `target`, used to match results to the manifest. */
export function expectedResultName(runtime: Runtime, target: TestTarget): string {
  return runtime === "node22" ? target.name : `tests/${target.file}::${target.name}`;
}

/**
 * Address-space ceiling for runs without a memory cgroup: Node reserves far more virtual
 * memory than it touches, so it gets a fixed allowance on top of the heap limit.
 */
export function computeAddressSpaceMb(runtime: Runtime, memoryMb: number): number {
  return runtime === "node22" ? memoryMb + 2048 : memoryMb + 256;
}

function escapePattern(names: readonly string[]): string {
  return `^(?:${names.map(escapeRegExp).join("|")})$`;
}

/** The workspace at /work, the interpreter or its tools, the harness, and the dependencies. */
function buildRuntimeMounts(
  runtime: Runtime,
  paths: RuntimePaths,
  workspace: string,
  depsLayer: string | null,
): SandboxMount[] {
  const mounts: SandboxMount[] = [{ src: workspace, dest: WORKSPACE }];
  if (runtime === "node22") {
    mounts.push(
      { src: paths.nodeBin, dest: NODE_IN_SANDBOX },
      { src: path.join(paths.harnessDir, "node"), dest: HARNESS_ROOT },
    );
    if (depsLayer) mounts.push({ src: depsLayer, dest: `${WORKSPACE}/node_modules` });
    return mounts;
  }
  mounts.push(
    { src: paths.pythonTools, dest: PYTOOLS_IN_SANDBOX },
    { src: path.join(paths.harnessDir, "python"), dest: HARNESS_ROOT },
  );
  if (depsLayer) mounts.push({ src: depsLayer, dest: DEPS_IN_SANDBOX });
  return mounts;
}

/** The sandboxed Node binary with a heap limit inside the memory limit. */
function nodeCommand(memoryMb: number): string[] {
  return [
    NODE_IN_SANDBOX,
    "--disable-warning=ExperimentalWarning",
    `--max-old-space-size=${Math.max(16, Math.floor(memoryMb * 0.75))}`,
  ];
}

/** The sandboxed Python in isolated mode (no user site, no environment paths), writing no .pyc. */
function pythonCommand(paths: RuntimePaths): string[] {
  return [paths.pythonBin, "-I", "-B"];
}

/** An invocation that runs in the workspace folder. */
function inWorkspace(
  argv: string[],
  env: Record<string, string>,
  mounts: SandboxMount[],
): TestInvocation {
  return { argv, env, cwd: WORKSPACE, mounts };
}

/** Module path of the submission inside the subject's sandbox. */
export function subjectModulePath(module: string): string {
  return `${WORKSPACE}/${module}`;
}

/**
 * Builds the command of a run's subject: the submission's module loaded by the harness's
 * subject server (docs/subject-protocol.md), with the submission mounted read-only at /work and
 * no test anywhere in its sandbox. `channelDir` is mounted read-write at /chan (HTTP sockets).
 */
export function buildSubjectInvocation(
  runtime: Runtime,
  paths: RuntimePaths,
  workspace: string,
  depsLayer: string | null,
  module: string,
  memoryMb: number,
): TestInvocation {
  const mounts = buildRuntimeMounts(runtime, paths, workspace, depsLayer);
  if (runtime === "node22") {
    return inWorkspace(
      [
        ...nodeCommand(memoryMb),
        "--import",
        `${HARNESS_ROOT}/preload.mjs`,
        `${HARNESS_ROOT}/subject.mjs`,
        subjectModulePath(module),
      ],
      { ...BASE_ENV, NODE_ENV: "test" },
      mounts,
    );
  }
  return inWorkspace(
    [
      ...pythonCommand(paths),
      "-X",
      "pycache_prefix=/tmp/pycache",
      `${HARNESS_ROOT}/subject.py`,
      "-",
      depsLayer ? DEPS_IN_SANDBOX : "-",
      subjectModulePath(module),
    ],
    { ...BASE_ENV },
    mounts,
  );
}

/**
 * Builds the command of one trusted test process: the named tests of one hidden test file,
 * with the bridge standing where the submission's module would be. No submission file is
 * mounted; /chan (the subject's sockets) is read-only.
 */
export function buildTrustedInvocation(
  runtime: Runtime,
  paths: RuntimePaths,
  workspace: string,
  depsLayer: string | null,
  file: string,
  names: readonly string[],
  memoryMb: number,
  testTimeoutMs: number,
): TestInvocation {
  const mounts = buildRuntimeMounts(runtime, paths, workspace, depsLayer);
  const env = { ...BASE_ENV, BOUTS_CHANNEL_DIR: CHANNEL_DIR };
  if (runtime === "node22") {
    return inWorkspace(
      [
        ...nodeCommand(memoryMb),
        "--import",
        `${HARNESS_ROOT}/trusted.mjs`,
        `--test-reporter=${HARNESS_ROOT}/reporter.mjs`,
        "--test-reporter-destination=stdout",
        `--test-timeout=${testTimeoutMs}`,
        `--test-name-pattern=${escapePattern(names)}`,
        `${WORKSPACE}/tests/${file}`,
      ],
      { ...env, NODE_ENV: "test" },
      mounts,
    );
  }
  return inWorkspace(
    [
      ...pythonCommand(paths),
      `${HARNESS_ROOT}/run_pytest.py`,
      PYTOOLS_IN_SANDBOX,
      depsLayer ? DEPS_IN_SANDBOX : "-",
      ...names.map((name) => expectedResultName(runtime, { file, name })),
    ],
    { ...env, PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" },
    mounts,
  );
}
