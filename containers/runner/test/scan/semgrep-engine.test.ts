/**
 * The scanner drives Semgrep's engine (semgrep-core) directly, with the runner's own target list:
 * one engine process per scan and no Python CLI, every picked file scanned (.mts and .cts too), a
 * file the engine passes over reported as not scanned, and a cancelled scan ends the engine.
 * Wrapper scripts stand in for the engine to watch or replace it.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ScanReportSchema } from "@bouts/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanSubmission } from "../../src/scan/index.ts";
import { listRuleFiles, resolveSemgrepCoreBin } from "../../src/scan/semgrep.ts";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/scan");
const SLOW = 180_000;
const SQLI = 'export const find = (db, id) => db.query("SELECT * FROM notes WHERE id = " + id);\n';

describe("the Semgrep engine", () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), "bouts-semgrep-engine-"));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  /** A shell script at `work/name` with `body`. */
  const script = async (name: string, body: string): Promise<string> => {
    const file = path.join(work, name);
    await writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return file;
  };

  it(
    "runs once per scan, natively, with our rule files and the runner's list of targets",
    async () => {
      const log = path.join(work, "engine-calls.log");
      const wrapper = await script(
        "logging-engine",
        `printf '%s\\n' "$*" >> '${log}'\nexec '${resolveSemgrepCoreBin()}' "$@"`,
      );
      for (let i = 0; i < 2; i++) {
        const report = await scanSubmission(path.join(FIXTURES, "insecure-node"), {
          runtime: "node",
          semgrepCoreBin: wrapper,
        });
        expect(report.status).toBe("complete");
        expect(report.findings.map((f) => [f.tool, f.rule, f.line])).toEqual([
          ["semgrep", "bouts.js.sql-injection.string-built-query", 12],
        ]);
      }
      const calls = (await readFile(log, "utf8")).trim().split("\n");
      expect(calls).toHaveLength(2);
      for (const call of calls) {
        const argv = call.split(" ");
        expect(argv.filter((a) => a === "-rules")).toHaveLength(listRuleFiles().length);
        expect(argv).toContain("-targets");
        expect(argv).not.toContain("--config");
        expect(argv).not.toContain("scan");
      }
    },
    SLOW,
  );

  it(
    "scans every TypeScript and JavaScript extension the runner picks, .mts and .cts included",
    async () => {
      const dir = path.join(work, "extensions");
      const exts = [".js", ".cjs", ".mjs", ".jsx", ".ts", ".cts", ".mts", ".tsx"];
      await mkdir(dir, { recursive: true });
      for (const ext of exts) await writeFile(path.join(dir, `find${ext}`), SQLI);
      const report = await scanSubmission(dir, { runtime: "node" });
      expect(ScanReportSchema.parse(report)).toEqual(report);
      expect(report.status).toBe("complete");
      const bySemgrep = report.findings
        .filter((f) => f.tool === "semgrep" && f.cwe === "CWE-89")
        .map((f) => f.file)
        .sort();
      expect(bySemgrep).toEqual(exts.map((e) => `find${e}`).sort());
    },
    SLOW,
  );

  it(
    "reports a file the engine passed over as not scanned, never as clean",
    async () => {
      const silent = await script(
        "silent-engine",
        `echo '{"version":"0","results":[],"errors":[],"paths":{"scanned":[]}}'`,
      );
      const report = await scanSubmission(path.join(FIXTURES, "insecure-node"), {
        runtime: "node",
        semgrepCoreBin: silent,
      });
      expect(report.status).toBe("partial");
      expect(report.skipped).toEqual([
        { file: "src/server.js", reason: "semgrep did not scan this file" },
      ]);
    },
    SLOW,
  );

  it(
    "ends the engine when the caller cancels the scan mid-way",
    async () => {
      const pidFile = path.join(work, "engine.pid");
      const stalling = await script("stalling-engine", `echo $$ > '${pidFile}'\nexec sleep 600`);
      const controller = new AbortController();
      const scan = scanSubmission(path.join(FIXTURES, "insecure-node"), {
        runtime: "node",
        semgrepCoreBin: stalling,
        signal: controller.signal,
      });
      while (!existsSync(pidFile) || (await readFile(pidFile, "utf8")).trim() === "") {
        await new Promise((r) => setTimeout(r, 20));
      }
      const pid = Number((await readFile(pidFile, "utf8")).trim());
      controller.abort();
      const report = await scan;
      expect(report.status).toBe("unavailable");
      expect(report.tools[0]).toMatchObject({ tool: "semgrep", status: "failed" });
      expect(report.tools[0]!.detail).toMatch(/cancelled/);
      expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    },
    SLOW,
  );
});
