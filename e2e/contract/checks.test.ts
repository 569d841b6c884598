/**
 * @module e2e/contract/checks.test
 * Which Schemathesis checks the contract test runs on which operation, as Schemathesis itself
 * resolves e2e/contract/schemathesis.toml: every check it has on every operation, but for the
 * "created resource not found" check (ST302) on the public board reads, where a draft's 404 is
 * the contract. The command line names no checks: `--checks all` there is applied over the
 * file's per-operation settings and turned ST302 back on for those reads, so the stateful phase
 * failed whenever it happened to follow `POST /v1/challenges` to one of them. Also which phases
 * run where (all but the webhook registration's coverage) and the short mode's bound on fuzzing.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { modeSettings, readContractMode } from "./mode.ts";

const ROOT = path.join(import.meta.dirname, "../..");
const PYTHON = path.join(ROOT, ".venv-contract/bin/python");

/** The public board reads (no key; a draft's board is a 404), as the settings file names them. */
const BOARD_READS = [
  "GET /v1/challenges/{id}/leaderboard",
  "GET /v1/challenges/{id}/leaderboard/cost",
  "GET /v1/challenges/{id}/leaderboard/ws",
  "GET /v1/challenges/{id}/agents/{agentId}",
  "GET /v1/challenges/{id}/history",
  "GET /v1/challenges/{id}/private-leaderboard",
];
const OTHERS = ["POST /v1/challenges", "GET /v1/challenges/{id}/versions"];
/** The one operation whose coverage phase is off (its URL pattern; see the settings file). */
const WEBHOOK_REGISTRATION = "POST /v1/webhooks";

/**
 * Prints, for each operation of a small document with these paths, the checks Schemathesis
 * enables in each phase under the settings file, and every check it has.
 */
const RESOLVE = `
import json, sys
import schemathesis
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.config import SchemathesisConfig
load_all_checks()
labels = json.loads(sys.argv[2])
paths = {}
for label in labels:
    method, route = label.split(" ", 1)
    params = [{"name": p.strip("{}"), "in": "path", "required": True, "schema": {"type": "string"}}
              for p in route.split("/") if p.startswith("{")]
    paths.setdefault(route, {})[method.lower()] = {"parameters": params, "responses": {"200": {"description": "ok"}}}
doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths}
schema = schemathesis.openapi.from_dict(doc, config=SchemathesisConfig.from_path(sys.argv[1]))
names = sorted(c.__name__ for c in CHECKS.get_all() if not isinstance(c, type))
out = {"all": names, "enabled": {}, "phases": {}, "fuzzingExamples": {}}
for label in labels:
    method, route = label.split(" ", 1)
    op = schema[route][method]
    out["enabled"][label] = {
        phase: [n for n in names if schema.config.checks_config_for(operation=op, phase=phase).get_by_name(name=n).enabled]
        for phase in ["examples", "coverage", "fuzzing", "stateful"]
    }
    phases = schema.config.phases_for(operation=op)
    out["phases"][label] = [p for p in ["examples", "coverage", "fuzzing", "stateful"] if phases.get_by_name(name=p).enabled]
    out["fuzzingExamples"][label] = schema.config.generation_for(operation=op, phase="fuzzing").max_examples
print(json.dumps(out))
`;

/**
 * A mode's settings (the shared file and the mode's own bound, as contract.test.ts writes them) as
 * Schemathesis resolves them for every operation named above.
 */
function resolveSettings(mode: "short" | "long") {
  expect(existsSync(PYTHON), `${PYTHON} missing: run npm run setup`).toBe(true);
  const dir = mkdtempSync(path.join(tmpdir(), "bouts-contract-settings-"));
  try {
    const file = path.join(dir, "schemathesis.toml");
    const shared = readFileSync(path.join(ROOT, "e2e/contract/schemathesis.toml"), "utf8");
    writeFileSync(file, modeSettings(readContractMode({ CONTRACT_MODE: mode }), shared));
    const labels = [...BOARD_READS, ...OTHERS, WEBHOOK_REGISTRATION];
    const run = spawnSync(PYTHON, ["-c", RESOLVE, file, JSON.stringify(labels)], {
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as {
      all: string[];
      enabled: Record<string, Record<string, string[]>>;
      phases: Record<string, string[]>;
      fuzzingExamples: Record<string, number | null>;
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let short: ReturnType<typeof resolveSettings>;
let long: ReturnType<typeof resolveSettings>;
beforeAll(() => {
  short = resolveSettings("short");
  long = resolveSettings("long");
});

describe("the contract test's checks", () => {
  it("runs every check on every operation, but ST302 on the public board reads", () => {
    const { all, enabled } = short;
    expect(all).toContain("ensure_resource_availability");
    expect(all.length).toBeGreaterThanOrEqual(14);
    for (const label of OTHERS)
      for (const checks of Object.values(enabled[label]!)) expect(checks, label).toEqual(all);
    for (const label of BOARD_READS)
      for (const checks of Object.values(enabled[label]!))
        expect(checks, label).toEqual(all.filter((n) => n !== "ensure_resource_availability"));
  });

  it("runs every phase on every operation but the webhook registration's coverage", () => {
    const { phases } = short;
    for (const label of [...BOARD_READS, ...OTHERS])
      expect(phases[label], label).toEqual(["examples", "coverage", "fuzzing", "stateful"]);
    expect(phases[WEBHOOK_REGISTRATION]).toEqual(["examples", "fuzzing", "stateful"]);
  });

  it("bounds fuzzing to five cases an operation in the short mode, none in the long", () => {
    for (const label of [...OTHERS, WEBHOOK_REGISTRATION]) {
      expect(short.fuzzingExamples[label], label).toBe(5);
      // Nothing in the file: the long mode's `--max-examples 1000` is what bounds it.
      expect(long.fuzzingExamples[label], label).toBeNull();
    }
  });

  it("names no checks on the command line, where they would override the file's", () => {
    const source = readFileSync(path.join(ROOT, "e2e/contract.test.ts"), "utf8");
    expect(source).not.toMatch(/["']--checks["']|["']-c["']/);
  });
});
