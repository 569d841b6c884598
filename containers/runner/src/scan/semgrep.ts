/**
 * @module runner/scan/semgrep
 * Runs the pinned Semgrep with our rules only, over the scratch copy of a submission.
 * Invariants: no network (metrics and version checks off, local config only); the submission's
 * ignore files and `nosemgrep` comments have no effect; a non-zero exit, unparsable output or
 * a rule error makes the run "failed" (the scan is then unavailable, never clean); stopped by
 * the scan's signal it is "not-run" with `stopped` (index.ts decides what that means); per-file
 * timeouts and parse failures become skips with the reason; matches of the dynamic-code rules
 * (metadata `unscanned`) are handed back as unscanned code, never as findings.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import type { LoadedModule, RawFinding, ToolOutcome, UnscannedCode } from "./tool.ts";
import { parseCwe } from "./tool.ts";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../../..");

/** Our Semgrep rules (YAML); the rule tests beside them are not loaded as config. */
export const SEMGREP_RULES_DIR = path.resolve(import.meta.dirname, "../../scan-rules");

/** The Semgrep binary: RUNNER_SEMGREP_BIN, else the venv that scripts/setup/20-semgrep.sh makes. */
export function resolveSemgrepBin(): string {
  return process.env.RUNNER_SEMGREP_BIN ?? path.join(REPO_ROOT, ".venv/bin/semgrep");
}

export interface SemgrepOptions {
  scratchDir: string;
  maxFileBytes: number;
  /** Seconds Semgrep may spend on one rule and one file before it skips that file. */
  perFileTimeoutSec: number;
  signal: AbortSignal;
  bin?: string;
}

interface SemgrepJson {
  version?: string;
  results: {
    check_id: string;
    path: string;
    start: { line: number };
    extra: { message?: string; metadata?: Record<string, unknown> };
  }[];
  errors: { level?: string; type?: unknown; message?: string; path?: string; rule_id?: string }[];
}

/** Runs Semgrep over `scratchDir/src` and parses its JSON report. */
export async function runSemgrep(options: SemgrepOptions): Promise<ToolOutcome> {
  const bin = options.bin ?? resolveSemgrepBin();
  const args = [
    "scan",
    "--config",
    SEMGREP_RULES_DIR,
    "--json",
    "--metrics=off",
    "--disable-version-check",
    "--disable-nosem",
    "--no-git-ignore",
    "--x-ignore-semgrepignore-files",
    "--timeout",
    String(options.perFileTimeoutSec),
    "--timeout-threshold",
    "0",
    "--max-target-bytes",
    String(options.maxFileBytes + 1),
    "--jobs",
    "1",
    "src",
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
  let report: SemgrepJson;
  try {
    report = JSON.parse(proc.stdout) as SemgrepJson;
  } catch {
    return failed(`exit ${proc.code}, unreadable output: ${proc.stderr.slice(-500)}`);
  }
  // 0 = ran (findings or not). Anything else is a failure of the tool, not a clean result.
  if (proc.code !== 0) {
    const msg = report.errors?.map((e) => e.message).join("; ") ?? "";
    return failed(`exit ${proc.code}: ${msg || proc.stderr.slice(-500)}`);
  }
  const skipped: ToolOutcome["skipped"] = [];
  for (const e of report.errors) {
    const kind = Array.isArray(e.type)
      ? String(e.type[0])
      : typeof e.type === "string"
        ? e.type
        : "error";
    if (!e.path) return failed(`${kind}: ${e.message ?? "unknown error"}`);
    const what = /timeout/i.test(kind)
      ? `semgrep timed out on this file${e.rule_id ? ` (rule ${stripRulePrefix(e.rule_id)})` : ""}`
      : /pars/i.test(kind) || /syntax/i.test(e.message ?? "")
        ? `semgrep could not fully parse this file (${firstLine(e.message)}); findings may be missing`
        : `semgrep ${kind}: ${firstLine(e.message)}`;
    skipped.push({ scratchPath: e.path, reason: what });
  }
  const findings: RawFinding[] = [];
  const unscanned: UnscannedCode[] = [];
  const loads: LoadedModule[] = [];
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
      // Semgrep forks semgrep-core: end the whole process group.
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
