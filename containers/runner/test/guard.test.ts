import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SCENARIO = path.join(import.meta.dirname, "fixtures", "guard-scenario.ts");

describe("the last-resort guard", () => {
  it("ends only the run whose detached code threw, and keeps the process serving", () => {
    const out = spawnSync(process.execPath, ["--import", "tsx", SCENARIO], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(out.status, out.stderr).toBe(0);
    const { results, logged } = JSON.parse(out.stdout.trim().split("\n").at(-1)!) as {
      results: {
        ok: boolean;
        value?: unknown;
        error?: { reason: string; label: string; detail: string };
      }[];
      logged: string[];
    };
    expect(results.slice(0, 3)).toEqual([
      {
        ok: false,
        error: {
          reason: "run-fault",
          label: "immediate",
          detail: "Error: ENAMETOOLONG from a detached callback",
        },
      },
      {
        ok: false,
        error: { reason: "run-fault", label: "io", detail: "Error: thrown in an I/O callback" },
      },
      {
        ok: false,
        error: { reason: "run-fault", label: "rejection", detail: "Error: nobody handles this" },
      },
    ]);
    expect(results[3]).toEqual({ ok: true, value: 42 });
    expect(logged.at(-1)).toMatch(/outside any run \(kept serving\): Error: outside any run/);
  });
});
