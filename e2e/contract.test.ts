/**
 * The API contract (docs/api.md "Contract test"): Schemathesis, pinned by
 * scripts/setup/40-schemathesis.sh, runs every check it has (`--checks all`: status codes,
 * content types, headers, response schemas, negative and positive data, methods, auth,
 * stateful links) against a private `npm start` serving its own /openapi.json, once with an
 * agent key and once with an operator key; e2e/contract/ holds its settings and hooks. Zero
 * failures is the bar; the JUnit report and the full log land in test-artifacts/contract/ for
 * reading when it is not met.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startPlatform, type Platform } from "./platform.ts";

const ST = path.join(ROOT, ".venv-contract/bin/st");
const ARTIFACTS = path.join(ROOT, "test-artifacts/contract");
/** Time budget of each run, in seconds: fuzzing and the stateful phase repeat until it is spent. */
const MAX_TIME_S = Number(process.env.CONTRACT_MAX_TIME_S ?? 120);
/** Under the platform's per-principal API limit (600 a minute), so answers are not all 429. */
const RATE_LIMIT = "400/m";

let platform: Platform;

interface Totals {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  failed: string[];
}

/** Totals from Schemathesis' JUnit report: one test case per API operation. */
function readJunit(file: string): Totals {
  const xml = readFileSync(file, "utf8");
  const attr = (name: string) =>
    [...xml.matchAll(new RegExp(`<testsuite\\b[^>]*\\b${name}="(\\d+)"`, "g"))].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  const failed = [
    ...xml.matchAll(/<testcase\b[^>]*\bname="([^"]+)"[^>]*>\s*<(failure|error)\b/g),
  ].map((m) => m[1]!);
  return {
    tests: attr("tests"),
    failures: attr("failures"),
    errors: attr("errors"),
    skipped: attr("skipped"),
    failed,
  };
}

function runSchemathesis(name: string, key: string): Promise<{ code: number; log: string }> {
  const dir = path.join(ARTIFACTS, name);
  mkdirSync(dir, { recursive: true });
  const args = [
    "--no-color",
    "--config-file",
    path.join(ROOT, "e2e/contract/schemathesis.toml"),
    "run",
    `${platform.api}/openapi.json`,
    "--checks",
    "all",
    "--max-time",
    String(MAX_TIME_S),
    "--rate-limit",
    RATE_LIMIT,
    "--request-timeout",
    "30",
    "--workers",
    "1",
    "--seed",
    "20261201",
    "--header",
    `Authorization: Bearer ${key}`,
    "--report",
    "junit",
    "--report-junit-path",
    path.join(dir, "junit.xml"),
    "--generation-database",
    "none",
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(ST, args, {
      cwd: ROOT,
      // e2e/contract/hooks.py: the bundle route's application/gzip body.
      env: {
        ...process.env,
        NO_COLOR: "1",
        SCHEMATHESIS_HOOKS: "hooks",
        PYTHONPATH: path.join(ROOT, "e2e/contract"),
      },
    });
    let log = "";
    child.stdout.on("data", (b: Buffer) => (log += b.toString()));
    child.stderr.on("data", (b: Buffer) => (log += b.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      writeFileSync(path.join(dir, "schemathesis.log"), log);
      resolve({ code: code ?? -1, log });
    });
  });
}

describe("the API is what its OpenAPI document says (Schemathesis)", () => {
  beforeAll(async () => {
    if (!existsSync(ST)) throw new Error(`${ST} missing: run npm run setup`);
    platform = await startPlatform({
      seed: ["deep-merge"],
      logFile: path.join(ARTIFACTS, "platform.log"),
      timeoutMs: 240_000,
    });
  }, 300_000);

  afterAll(async () => {
    await platform?.stop();
  }, 60_000);

  // The two keys are two principals with rate limits of their own, so their runs share the
  // platform at once: the same fuzzing time each, half the wall time.
  for (const role of ["agent", "operator"] as const) {
    it.concurrent(
      `passes every check with an ${role} key`,
      async () => {
        const { code, log } = await runSchemathesis(role, platform.credentials[role].key);
        const totals = readJunit(path.join(ARTIFACTS, role, "junit.xml"));
        // The totals go to the test log for the closing note of whoever changes the API.
        console.log(
          `schemathesis ${role}: ${totals.tests} operations, ${totals.failures} failures, ` +
            `${totals.errors} errors, ${totals.skipped} skipped`,
        );
        expect(totals.failed, log.slice(-6000)).toEqual([]);
        expect(totals.failures + totals.errors).toBe(0);
        expect(totals.tests).toBeGreaterThan(20);
        expect(code, log.slice(-6000)).toBe(0);
      },
      (MAX_TIME_S + 180) * 1000,
    );
  }
});
