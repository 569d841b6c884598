/**
 * Test helpers: a runner environment in a temporary work dir, and prepared fixture challenges.
 * Untrusted code in these tests only ever runs through the sandbox.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import {
  packChallengeDir,
  prepareChallenge,
  type PreparedChallenge,
} from "../src/challenge/bundle.ts";
import { parseRunnerConfig, type RunnerConfig } from "../src/config.ts";
import { createRunnerEnvironment } from "../src/environment.ts";
import { resolveUnpackLimits, type RunnerEnvironment } from "../src/job.ts";

export const FIXTURES = path.join(import.meta.dirname, "fixtures");
export const EXPLOITS = path.join(import.meta.dirname, "exploits");
export const CHALLENGES = path.resolve(import.meta.dirname, "../../../challenges");

/** A config with a private work dir and the given overrides. */
export function buildTestConfig(overrides: Record<string, string> = {}): RunnerConfig {
  const workDir = mkdtempSync(path.join(tmpdir(), "bouts-runner-test-"));
  // Test files run in parallel processes: give each environment its own uid range, as
  // separate runner processes on one host must have (docs/runner.md).
  const uidBase = String(62000 + Math.floor(Math.random() * 500) * 8);
  const r = parseRunnerConfig({ RUNNER_WORK_DIR: workDir, RUNNER_UID_BASE: uidBase, ...overrides });
  if (!r.ok) throw new Error(r.error.issues.join("; "));
  return r.value;
}

/** Creates an environment (with the self-test unless turned off). */
export async function createTestEnvironment(
  overrides: Record<string, string> = {},
): Promise<RunnerEnvironment> {
  const config = buildTestConfig(overrides);
  const env = await createRunnerEnvironment(config);
  if (!env.ok) throw new Error(`runner environment failed: ${JSON.stringify(env.error)}`);
  return env.value.environment;
}

/** Packs and prepares a challenge folder. */
export async function prepareDir(
  environment: RunnerEnvironment,
  dir: string,
): Promise<PreparedChallenge> {
  const bytes = await packChallengeDir(dir);
  const r = await prepareChallenge(bytes, {
    workDir: environment.config.WORK_DIR,
    unpackLimits: resolveUnpackLimits(environment.config),
    pythonToolsVenv: environment.config.PYTHON_TOOLS,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

/** A multipart body from named parts (strings as fields, buffers as files). */
export function form(parts: Record<string, string | Buffer>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(parts)) {
    if (typeof v === "string") f.append(k, v);
    else f.append(k, new Blob([new Uint8Array(v)]), k);
  }
  return f;
}

/** Calls `onLine` for each non-blank line of a child's output stream. */
export function onLines(stream: Readable, onLine: (line: string) => void): void {
  let pending = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    pending += chunk;
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim() !== "") onLine(line);
    }
  });
}

/** Resolves with a child's exit code once it has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}
