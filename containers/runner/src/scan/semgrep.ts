/**
 * @module runner/scan/semgrep
 * Runs the pinned Semgrep engine (semgrep-core, native, from the Semgrep wheel) with our rules
 * only, over an explicit list of the scratch copies. Invariants: no network and no target
 * discovery (the runner names every file, so no ignore file applies); matches are kept whether or
 * not `nosemgrep` marks them; a non-zero exit, unparsable output or a rule error makes the run
 * "failed"; stopped by the scan's signal it is "not-run" with `stopped` (index.ts decides what that
 * means); per-file timeouts, parse failures and files the engine did not scan become skips; matches
 * of the dynamic-code rules (metadata `unscanned`) are handed back as unscanned code.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { LoadedModule, RawFinding, ToolOutcome, UnscannedCode } from "./tool.ts";
import { parseCwe } from "./tool.ts";
import type { ScanTarget } from "./targets.ts";
import type { RunnerConfig } from "../config.ts";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../../..");

/** Our Semgrep rules (YAML); the rule tests beside them are not loaded as config. */
export const SEMGREP_RULES_DIR = path.resolve(import.meta.dirname, "../../scan-rules");

/** The Semgrep binaries the runner's config names (RUNNER_SEMGREP_BIN, RUNNER_SEMGREP_CORE_BIN). */
export type SemgrepPaths = Partial<Pick<RunnerConfig, "SEMGREP_BIN" | "SEMGREP_CORE_BIN">>;

/** The Semgrep CLI: the config's SEMGREP_BIN, else the venv that scripts/setup/20-semgrep.sh makes. */
export function resolveSemgrepBin(config: SemgrepPaths = {}): string {
  return config.SEMGREP_BIN ?? path.join(REPO_ROOT, ".venv/bin/semgrep");
}

/**
 * The engine the CLI drives: the config's SEMGREP_CORE_BIN, else the `semgrep-core` that the same
 * wheel installed beside the CLI's venv (`<venv>/lib/python3.*\/site-packages/semgrep/bin`).
 * Calling it directly skips the Python wrapper's ~3–5 s start-up (docs/security-scanning.md).
 */
export function resolveSemgrepCoreBin(config: SemgrepPaths = {}): string {
  const explicit = config.SEMGREP_CORE_BIN;
  if (explicit) return explicit;
  const venv = path.dirname(path.dirname(resolveSemgrepBin(config)));
  const lib = path.join(venv, "lib");
  const pythons = existsSync(lib) ? readdirSync(lib).filter((d) => d.startsWith("python")) : [];
  for (const py of pythons.sort()) {
    const core = path.join(lib, py, "site-packages/semgrep/bin/semgrep-core");
    if (existsSync(core)) return core;
  }
  return path.join(venv, "bin/semgrep-core");
}

let ruleFiles: string[] | undefined;

/** Our rule files, listed once per process: the rules ship with the runner and never change. */
export function listRuleFiles(): string[] {
  ruleFiles ??= ["javascript", "python"].flatMap((lang) =>
    readdirSync(path.join(SEMGREP_RULES_DIR, lang))
      .filter((f) => f.endsWith(".yaml"))
      .sort()
      .map((f) => path.join(SEMGREP_RULES_DIR, lang, f)),
  );
  return ruleFiles;
}

/** semgrep-core's analyzer for each language targets.ts assigns (the CLI's own mapping). */
const ANALYZER: Readonly<Record<ScanTarget["language"], string>> = {
  javascript: "js",
  typescript: "ts",
  python: "python",
};

export interface SemgrepOptions {
  scratchDir: string;
  /** The scratch copies to scan (targets.ts already left out files over the size limit). */
  targets: readonly ScanTarget[];
  /** Seconds Semgrep may spend on one rule and one file before it skips that file. */
  perFileTimeoutSec: number;
  signal: AbortSignal;
  /** semgrep-core binary (default: resolveSemgrepCoreBin()). */
  bin?: string;
}

interface CoreJson {
  version?: string;
  results: {
    check_id: string;
    path: string;
    start: { line: number };
    extra: { message?: string; metadata?: Record<string, unknown> };
  }[];
  errors: {
    error_type?: unknown;
    severity?: string;
    message?: string;
    rule_id?: string;
    location?: { path?: string };
  }[];
  paths?: { scanned?: string[] };
}

/** Runs semgrep-core over the scratch copies and parses its JSON report. */
export async function runSemgrep(options: SemgrepOptions): Promise<ToolOutcome> {
  const bin = options.bin ?? resolveSemgrepCoreBin();
  // The engine's target list (the format the CLI hands it): each file with its analyzer.
  const targetsFile = path.join(options.scratchDir, "semgrep-targets.json");
  const targets = [
    "Targets",
    options.targets.map((t) => [
      "CodeTarget",
      {
        path: { fpath: t.scratchPath, ppath: `/${t.scratchPath}` },
        analyzer: ANALYZER[t.language],
        products: ["sast"],
      },
    ]),
  ];
  // Written synchronously (a small file) so the engine is spawned before ESLint, which runs
  // in this thread, takes the event loop: the two then run side by side.
  writeFileSync(targetsFile, JSON.stringify(targets));
  const args = [
    "-json",
    ...listRuleFiles().flatMap((f) => ["-rules", f]),
    "-targets",
    targetsFile,
    "-j",
    "1",
    "-timeout",
    String(options.perFileTimeoutSec),
    "-timeout_threshold",
    "0",
    "-max_memory",
    "0",
    "-fast",
  ];
  const proc = await runProcess(bin, args, options.scratchDir, options.signal);
  const failed = (detail: string): ToolOutcome => ({
    run: { tool: "semgrep", version: null, status: "failed", detail: detail.slice(0, 2000) },
    findings: [],
    skipped: [],
  });
  if (proc.kind === "spawn-error") return failed(`could not start ${bin}: ${proc.message}`);
  if (proc.kind === "aborted")
    return {
      run: { tool: "semgrep", version: null, status: "not-run", detail: "stopped before it ended" },
      findings: [],
      skipped: [],
      stopped: true,
    };
  // 0 = ran (findings or not). Anything else is a failure of the tool, not a clean result.
  if (proc.code !== 0) return failed(`exit ${proc.code}: ${proc.stderr.slice(-500)}`);
  let report: CoreJson;
  try {
    // The engine prints a progress dot per file before its JSON report.
    report = JSON.parse(proc.stdout.slice(proc.stdout.indexOf("{"))) as CoreJson;
  } catch {
    return failed(`unreadable output: ${proc.stderr.slice(-500)}`);
  }
  const skipped: ToolOutcome["skipped"] = [];
  for (const e of report.errors ?? []) {
    const kind = Array.isArray(e.error_type)
      ? String(e.error_type[0])
      : typeof e.error_type === "string"
        ? e.error_type
        : "error";
    const file = e.location?.path;
    if (!file) return failed(`${kind}: ${e.message ?? "unknown error"}`);
    const what = /timeout/i.test(kind)
      ? `semgrep timed out on this file${e.rule_id ? ` (rule ${stripRulePrefix(e.rule_id)})` : ""}`
      : /pars/i.test(kind) || /syntax|unexpected/i.test(e.message ?? "")
        ? `semgrep could not fully parse this file (${firstLine(e.message)}); findings may be missing`
        : `semgrep ${kind}: ${firstLine(e.message)}`;
    skipped.push({ scratchPath: file, reason: what });
  }
  // A target the engine passed over without an error (it could not read it) is not scanned.
  const scanned = new Set(report.paths?.scanned ?? []);
  const explained = new Set(skipped.map((s) => s.scratchPath));
  for (const t of options.targets) {
    if (!scanned.has(t.scratchPath) && !explained.has(t.scratchPath))
      skipped.push({ scratchPath: t.scratchPath, reason: "semgrep did not scan this file" });
  }
  const findings: RawFinding[] = [];
  const unscanned: UnscannedCode[] = [];
  const loads: LoadedModule[] = [];
  // `extra.is_ignored` (a `nosemgrep` comment) is deliberately not read: suppressions are the
  // submission's, and the platform decides what counts.
  for (const r of report.results) {
    const message = (r.extra.message ?? "").trim();
    // Dynamic code loading rules (scan-rules/*/dynamic-code.yaml) are not vulnerabilities:
    // they name code the scan cannot see, which the runner reports as not scanned.
    const mode = r.extra.metadata?.unscanned;
    if (mode === "yes") {
      unscanned.push({ scratchPath: r.path, line: r.start.line, source: message });
    } else if (mode === "resolve-require" || mode === "resolve-import") {
      loads.push({
        scratchPath: r.path,
        line: r.start.line,
        specifier: message,
        kind: mode === "resolve-require" ? "require" : "import",
      });
    } else if (mode !== undefined) {
      return failed(
        `rule ${stripRulePrefix(r.check_id)}: unknown metadata unscanned=${JSON.stringify(mode)}`,
      );
    } else {
      findings.push({
        tool: "semgrep",
        rule: stripRulePrefix(r.check_id),
        cwe: parseCwe(r.extra.metadata?.cwe),
        scratchPath: r.path,
        line: r.start.line,
        message,
      });
    }
  }
  return {
    run: {
      tool: "semgrep",
      version: report.version ?? null,
      status: "ok",
      detail: `${findings.length} findings and ${unscanned.length} dynamic code loads from the rules in containers/runner/scan-rules`,
    },
    findings,
    skipped,
    unscanned,
    loads,
  };
}

/** Semgrep prefixes a rule id with the config folder's dotted path; our ids start at "bouts.". */
function stripRulePrefix(id: string): string {
  const i = id.indexOf("bouts.");
  return i >= 0 ? id.slice(i) : id;
}

function firstLine(s: string | undefined): string {
  return (s ?? "").split("\n")[0]!.slice(0, 200);
}

type ProcessResult =
  | { kind: "exited"; code: number | null; stdout: string; stderr: string }
  | { kind: "aborted" }
  | { kind: "spawn-error"; message: string };

function runProcess(
  bin: string,
  args: string[],
  cwd: string,
  signal: AbortSignal,
): Promise<ProcessResult> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve({ kind: "aborted" });
    const child = spawn(bin, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? cwd,
        // The engine has no metrics or version check; these keep a wrapper passed as `bin` quiet.
        SEMGREP_ENABLE_VERSION_CHECK: "0",
        SEMGREP_SEND_METRICS: "off",
      },
      detached: true,
    });
    const out: Buffer[] = [];
    const errOut: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => {
      if (errOut.length < 256) errOut.push(b);
    });
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      // A wrapper passed as `bin` may fork the engine: end the whole process group.
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", (e) => {
      signal.removeEventListener("abort", onAbort);
      resolve({ kind: "spawn-error", message: e.message });
    });
    child.on("close", (code) => {
      signal.removeEventListener("abort", onAbort);
      if (aborted) return resolve({ kind: "aborted" });
      resolve({
        kind: "exited",
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(errOut).toString("utf8"),
      });
    });
  });
}
