/**
 * Code the scan cannot see is reported as not scanned, never as a clean scan: dynamic code
 * loading (eval/exec of a file's text, a module named at run time, a data file loaded as a
 * module), binaries, archives and scripts for other interpreters, through the real scanners.
 * Submissions are written to a temp folder here; the payloads hold a SQL injection that a
 * scan of the same code in a .js/.py file reports as critical.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ScanReport } from "@bouts/contracts";
import { ScanReportSchema } from "@bouts/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  describeDynamicCode,
  dynamicCodeReason,
  MAX_DYNAMIC_ENTRIES,
} from "../../src/scan/dynamic-code.ts";
import { UNSCANNED_CODE_RULE } from "../../src/scan/dynamic-code.ts";
import { computeSecurityScore, scanSubmission } from "../../src/scan/index.ts";

const SLOW = 180_000;
const SQLI_JS = 'module.exports = (db, id) => db.query("SELECT * FROM notes WHERE id = " + id);\n';

async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
}

describe("scanSubmission: unscanned code", () => {
  let work: string;
  const submission = async (name: string, files: Record<string, string | Buffer>) => {
    const dir = path.join(work, name);
    await writeTree(dir, files);
    return dir;
  };
  const scan = async (dir: string, runtime: "node" | "python"): Promise<ScanReport> => {
    const report = await scanSubmission(dir, { runtime });
    expect(ScanReportSchema.parse(report)).toEqual(report);
    expect(report.tools.filter((t) => t.status === "failed")).toEqual([]);
    return report;
  };

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), "bouts-dynamic-code-"));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it(
    "eval(readFileSync('payload.txt')) is a partial scan naming the file and line, not a clean one",
    async () => {
      const dir = await submission("node-eval", {
        "src/server.js": [
          'const { readFileSync } = require("node:fs");',
          "",
          'eval(readFileSync("payload.txt", "utf8"));',
          "",
        ].join("\n"),
        "payload.txt": SQLI_JS,
      });
      const report = await scan(dir, "node");
      expect(report.status).toBe("partial");
      // Hiding the injection in a data file scores no better than showing it: one critical.
      expect(report.findings).toEqual([
        expect.objectContaining({
          rule: UNSCANNED_CODE_RULE,
          cwe: null,
          severity: "critical",
          file: "src/server.js",
          line: 3,
        }),
      ]);
      expect(computeSecurityScore(report.findings).score).toBe(75);
      expect(report.skipped).toEqual([
        {
          file: "src/server.js",
          reason:
            'dynamic code loading at line 3: code run from eval(readFileSync("payload.txt", "utf8")) is not scanned',
        },
      ]);
    },
    SLOW,
  );

  it(
    "exec(open('payload.txt').read()) is a partial scan naming the file and line",
    async () => {
      const dir = await submission("python-exec", {
        "app.py": ["import os", "", "", 'exec(open("payload.txt").read())', ""].join("\n"),
        "payload.txt": 'cursor.execute(f"SELECT * FROM bills WHERE id = {bill_id}")\n',
      });
      const report = await scan(dir, "python");
      expect(report.status).toBe("partial");
      expect(report.findings).toEqual([
        expect.objectContaining({ rule: UNSCANNED_CODE_RULE, file: "app.py", line: 4 }),
      ]);
      expect(report.skipped).toEqual([
        {
          file: "app.py",
          reason:
            'dynamic code loading at line 4: code run from exec(open("payload.txt").read()) is not scanned',
        },
      ]);
    },
    SLOW,
  );

  it(
    "literal require('./x.js'), a JSON module and importlib.import_module('json') scan complete",
    async () => {
      const dir = await submission("literal", {
        "index.js": [
          'const x = require("./x.js");',
          'const lib = require("./lib");',
          'const config = require("./config.json");',
          "module.exports = { x, lib, config };",
          "",
        ].join("\n"),
        "x.js": "module.exports = 1;\n",
        "lib/index.js": "module.exports = 2;\n",
        "config.json": '{ "port": 3000 }\n',
        "esm.mjs": 'import { x } from "./x.js";\nimport "./styles.css";\nexport default x;\n',
        "styles.css": "body { color: red; }\n",
        "main.py": 'import importlib\n\njson = importlib.import_module("json")\n',
      });
      const report = await scan(dir, "node");
      expect(report.skipped).toEqual([]);
      expect(report.status).toBe("complete");
      expect(report.findings).toEqual([]);
    },
    SLOW,
  );

  it(
    "lists data files loaded as modules, binaries, archives and other scripts; scans #! scripts",
    async () => {
      const dir = await submission("misc", {
        "index.js": [
          'const a = require("./lib/hidden");', // a file with no extension: Node runs it as JS
          'const b = require("./payload.txt");',
          "const c = require(process.env.PLUGIN);",
          'const d = require("./.git/hooks/payload.js");',
          "module.exports = { a, b, c, d };",
          "",
        ].join("\n"),
        "lib/hidden": SQLI_JS,
        ".git/hooks/payload.js": SQLI_JS,
        "payload.txt": SQLI_JS,
        "plugin/package.json": '{ "main": "entry.dat" }\n',
        "plugin/entry.dat": SQLI_JS,
        "bin/tool": `#!/usr/bin/env node\n${SQLI_JS}`,
        "bin/deploy": "#!/bin/bash\necho deploy\n",
        "gui.pyw":
          'def find(cursor, bill_id):\n    cursor.execute(f"SELECT * FROM bills WHERE id = {bill_id}")\n',
        "data.txt": Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]),
        "vendor.zip": Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array<number>(18).fill(0)]),
      });
      const report = await scan(dir, "node");
      expect(report.status).toBe("partial");
      // The #! script is scanned like any .js file, and .pyw like any .py file.
      expect(report.findings).toEqual([
        expect.objectContaining({ cwe: "CWE-89", severity: "critical", file: "bin/tool", line: 2 }),
        expect.objectContaining({ cwe: "CWE-89", severity: "critical", file: "gui.pyw", line: 2 }),
        expect.objectContaining({ rule: UNSCANNED_CODE_RULE, severity: "critical" }),
      ]);
      expect(report.skipped).toEqual([
        { file: ".git/", reason: "dependency or tool folder: not the submission's own code" },
        { file: "bin/deploy", reason: expect.stringMatching(/script for \/bin\/bash/) as string },
        {
          file: "data.txt",
          reason: expect.stringMatching(/^an ELF .*no scanner or judge/) as string,
        },
        { file: "vendor.zip", reason: expect.stringMatching(/^zip archive/) as string },
        {
          file: "plugin/entry.dat",
          reason: 'plugin/package.json "main" makes Node load it as code, but it is not scanned',
        },
        {
          file: "index.js",
          reason:
            "dynamic code loading at line 1: code run from lib/hidden (a file with no extension loaded as a module; Node runs it as code) is not scanned",
        },
        {
          file: "index.js",
          reason:
            "dynamic code loading at line 2: code run from payload.txt (a .txt file loaded as a module; Node runs it as code) is not scanned",
        },
        {
          file: "index.js",
          reason:
            "dynamic code loading at line 3: code run from a module named at run time (process.env.PLUGIN) is not scanned",
        },
        {
          file: "index.js",
          reason:
            "dynamic code loading at line 4: code run from .git/hooks/payload.js (a .js file loaded as a module; Node runs it as code) is not scanned",
        },
      ]);
    },
    SLOW,
  );
});

describe("describeDynamicCode", () => {
  const fileOf = new Map([
    ["src/000000.js", "a.js"],
    ["src/000001.py", "b.py"],
  ]);

  it("keeps one entry per file and line, in file and line order", async () => {
    const skipped = await describeDynamicCode({
      dir: tmpdir(),
      fileOf,
      unscanned: [
        { scratchPath: "src/000001.py", line: 9, source: "exec(x)" },
        { scratchPath: "src/000000.js", line: 4, source: "eval(x)" },
        { scratchPath: "src/000000.js", line: 4, source: "a function built from x" },
        { scratchPath: "src/000000.js", line: 2, source: "require(name)" },
      ],
      loads: [],
    });
    expect(skipped).toEqual([
      { file: "a.js", reason: dynamicCodeReason(2, "require(name)") },
      { file: "a.js", reason: dynamicCodeReason(4, "eval(x)") },
      { file: "b.py", reason: dynamicCodeReason(9, "exec(x)") },
    ]);
  });

  it("caps the list and counts the rest; reasons fit the contract's 500 characters", async () => {
    const skipped = await describeDynamicCode({
      dir: tmpdir(),
      fileOf,
      unscanned: Array.from({ length: MAX_DYNAMIC_ENTRIES + 5 }, (_, i) => ({
        scratchPath: "src/000000.js",
        line: i + 1,
        source: `eval(${"x".repeat(1000)})`,
      })),
      loads: [{ scratchPath: "src/000000.js", line: 1, specifier: "/abs/x.txt", kind: "require" }],
    });
    expect(skipped).toHaveLength(MAX_DYNAMIC_ENTRIES + 1);
    expect(skipped.at(-1)!.reason).toMatch(/^dynamic code loading: 5 more places in 1 files/);
    for (const s of skipped) expect(s.reason.length).toBeLessThanOrEqual(500);
  });

  it("reports an absolute specifier and ignores one that leaves the submission", async () => {
    const skipped = await describeDynamicCode({
      dir: tmpdir(),
      fileOf,
      unscanned: [],
      loads: [
        { scratchPath: "src/000000.js", line: 1, specifier: "/work/payload.txt", kind: "require" },
        { scratchPath: "src/000000.js", line: 2, specifier: "../../outside.txt", kind: "require" },
        { scratchPath: "src/000000.js", line: 3, specifier: "./missing.txt", kind: "import" },
      ],
    });
    expect(skipped).toEqual([
      { file: "a.js", reason: expect.stringMatching(/line 1: .*absolute path/) as string },
    ]);
  });
});
