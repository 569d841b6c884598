/**
 * The API contract (docs/api.md "Contract test"): Schemathesis, pinned by
 * scripts/setup/tests/40-schemathesis.sh, runs every check it has (its default; status codes,
 * content types, headers, response schemas, negative and positive data, methods, auth,
 * stateful links; e2e/contract/checks.test.ts) against a private `npm start` serving its own
 * /openapi.json, once with an agent key and once with an operator key; e2e/contract/ holds its
 * settings and hooks. Zero
 * failures is the bar; the JUnit report and the full log land in test-artifacts/contract/ for
 * reading when it is not met. Before the fuzzing, on the same platform, `npm run smoke` runs as
 * an operator would run it against a deployment (scripts/smoke.ts), with a loopback receiver.
 */
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeResponseSchemas } from "./contract/closed-document.ts";
import { modeArguments, modeSettings, readContractMode } from "./contract/mode.ts";
import { ROOT, startPlatform, type Platform } from "./platform.ts";

const ST = path.join(ROOT, ".venv-contract/bin/st");
const ARTIFACTS = path.join(ROOT, "test-artifacts/contract");
/**
 * Short (npm test) or long (npm run release:check); its time budget is per run, in seconds:
 * fuzzing and the stateful phase repeat until it is spent.
 */
const MODE = readContractMode(process.env);
const MAX_TIME_S = MODE.maxTimeS;
/**
 * How long one Schemathesis run may take in all. `--max-time` bounds its fuzzing phase only;
 * its coverage and stateful phases come on top, and on a loaded machine every request is
 * slower. Past this the run is stopped and the test fails with what it printed so far.
 */
const RUN_DEADLINE_S = 2 * MAX_TIME_S + 120;
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
    path.join(ARTIFACTS, "schemathesis.toml"),
    "run",
    // The served document with its response schemas closed: an undocumented field fails.
    path.join(ARTIFACTS, "openapi.closed.json"),
    "--url",
    platform.api,
    ...modeArguments(MODE),
    "--rate-limit",
    RATE_LIMIT,
    "--request-timeout",
    "30",
    "--workers",
    "1",
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
    const deadline = setTimeout(() => {
      log += `\n[contract test] stopped after ${RUN_DEADLINE_S} s: Schemathesis did not finish\n`;
      child.kill("SIGKILL");
    }, RUN_DEADLINE_S * 1000);
    child.stdout.on("data", (b: Buffer) => (log += b.toString()));
    child.stderr.on("data", (b: Buffer) => (log += b.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(deadline);
      writeFileSync(path.join(dir, "schemathesis.log"), log);
      resolve({ code: code ?? -1, log });
    });
  });
}

beforeAll(async () => {
  if (!existsSync(ST)) throw new Error(`${ST} missing: run npm run setup`);
  platform = await startPlatform({
    seed: ["deep-merge"],
    logFile: path.join(ARTIFACTS, "platform.log"),
    timeoutMs: 240_000,
  });
  const served = (await (await fetch(`${platform.api}/openapi.json`)).json()) as Parameters<
    typeof closeResponseSchemas
  >[0];
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(
    path.join(ARTIFACTS, "openapi.closed.json"),
    JSON.stringify(closeResponseSchemas(served)),
  );
  // The shared settings with this mode's bound on fuzzing (e2e/contract/mode.ts).
  writeFileSync(
    path.join(ARTIFACTS, "schemathesis.toml"),
    modeSettings(MODE, readFileSync(path.join(ROOT, "e2e/contract/schemathesis.toml"), "utf8")),
  );
}, 300_000);

afterAll(async () => {
  await platform?.stop();
}, 60_000);

/** A free loopback port among those the local platform lets webhooks reach (9700–9799). */
async function freeReceiverPort(): Promise<number> {
  for (let port = 9700 + Math.floor(Math.random() * 100), i = 0; i < 100; i++) {
    const p = 9700 + ((port - 9700 + i) % 100);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(p, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return p;
  }
  throw new Error("no free receiver port in 9700–9799");
}

/** `npm run smoke` as an operator runs it; its output and exit status. */
function runSmokeCli(args: string[], operatorKey: string) {
  const r = spawnSync("npm", ["run", "--silent", "smoke", "--", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, BOUTS_OPERATOR_KEY: operatorKey },
    timeout: 240_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

// Sequential, before the fuzzing: an operator run of Schemathesis may close the challenge.
describe("npm run smoke against npm start's stack", () => {
  it("passes every step, the signed webhook included", async () => {
    const origin = platform.api.replace(/\/v1$/, "");
    const port = await freeReceiverPort();
    const { status, out } = runSmokeCli(
      [origin, "--challenge", "deep-merge", "--receiver", `http://127.0.0.1:${port}/hook`],
      platform.credentials.operator.key,
    );
    writeFileSync(path.join(ARTIFACTS, "smoke.log"), out);
    console.log(
      out
        .split("\n")
        .filter((l) => /^smoke_/.test(l))
        .join("\n"),
    );
    expect(status, out).toBe(0);
    for (const s of ["scored", "leaderboard", "public pages", "signed webhook received"])
      expect(out).toContain(`smoke: ok ${s}`);
    expect(out).toContain("smoke_judged_by: heuristic");
    expect(out.trim().split("\n").at(-1)).toBe("smoke: passed");
  }, 240_000);

  it("fails, naming the step, with a key that is not an operator's", () => {
    const origin = platform.api.replace(/\/v1$/, "");
    const { status, out } = runSmokeCli([origin], platform.credentials.agent.key);
    expect(status).toBe(1);
    expect(out).toContain("smoke: FAILED agent created");
    expect(out).not.toContain("smoke: passed");
  }, 60_000);
});

describe("the API is what its OpenAPI document says (Schemathesis)", () => {
  // The two keys are two principals with rate limits of their own, so their runs share the
  // platform at once: the same fuzzing time each, half the wall time.
  for (const role of ["agent", "operator"] as const) {
    it.concurrent(
      `passes every check with an ${role} key`,
      async () => {
        const { code, log } = await runSchemathesis(role, platform.credentials[role].key);
        expect(log, log.slice(-6000)).not.toContain("[contract test] stopped");
        const totals = readJunit(path.join(ARTIFACTS, role, "junit.xml"));
        // The totals go to the test log for the closing note of whoever changes the API.
        console.log(
          `schemathesis ${role} (${MODE.name} mode): ${totals.tests} operations, ${totals.failures} failures, ` +
            `${totals.errors} errors, ${totals.skipped} skipped`,
        );
        expect(totals.failed, log.slice(-6000)).toEqual([]);
        expect(totals.failures + totals.errors).toBe(0);
        expect(totals.tests).toBeGreaterThan(20);
        expect(code, log.slice(-6000)).toBe(0);
      },
      (RUN_DEADLINE_S + 30) * 1000,
    );
  }
});
