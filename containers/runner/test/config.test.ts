import { describe, expect, it } from "vitest";
import { parseRunnerConfig } from "../src/config.ts";
import { resolveSemgrepBin, resolveSemgrepCoreBin } from "../src/scan/semgrep.ts";

describe("runner config", () => {
  it("fills every key from its default", () => {
    const r = parseRunnerConfig({});
    expect(r.ok && r.value.PORT).toBe(8080);
    expect(r.ok && r.value.TEST_TIMEOUT_MS).toBe(10_000);
  });
  it("caps a run's budget at five minutes and the scan's deadline at 30 s by default", () => {
    const r = parseRunnerConfig({});
    expect(r.ok && r.value.RUN_WALL_MS).toBe(300_000);
    expect(r.ok && r.value.SCAN_DEADLINE_MS).toBe(30_000);
  });
  it("refuses a run budget ceiling under five seconds", () => {
    expect(parseRunnerConfig({ RUNNER_RUN_WALL_MS: "1000" }).ok).toBe(false);
  });
  it("ignores variables without the RUNNER_ prefix", () => {
    expect(parseRunnerConfig({ PORT: "nope" }).ok).toBe(true);
  });
  it("names every bad key", () => {
    const r = parseRunnerConfig({
      RUNNER_PORT: "eighty",
      RUNNER_TEST_TIMEOUT_MS: "60000",
    });
    expect(r.ok).toBe(false);
    const issues = r.ok ? [] : r.error.issues.join("\n");
    expect(issues).toContain("RUNNER_PORT");
    expect(issues).toContain("RUNNER_TEST_TIMEOUT_MS");
  });
  it("warns about, but tolerates, another component's RUNNER_ variable", () => {
    const r = parseRunnerConfig({ RUNNER_URL: "http://localhost:8080" });
    expect(r.ok && r.warnings).toEqual(["RUNNER_URL: not a runner variable (ignored)"]);
  });
  it("keeps the live advisory source off unless an http(s) endpoint is set", () => {
    const off = parseRunnerConfig({});
    expect(off.ok && off.value.ADVISORY_ENDPOINT).toBeUndefined();
    expect(off.ok && off.value.ADVISORY_TIMEOUT_MS).toBe(10_000);
    const on = parseRunnerConfig({
      RUNNER_ADVISORY_ENDPOINT: "https://api.osv.dev/v1/querybatch",
      RUNNER_ADVISORY_TIMEOUT_MS: "2500",
    });
    expect(on.ok && [on.value.ADVISORY_ENDPOINT, on.value.ADVISORY_TIMEOUT_MS]).toEqual([
      "https://api.osv.dev/v1/querybatch",
      2500,
    ]);
    const bad = parseRunnerConfig({ RUNNER_ADVISORY_ENDPOINT: "file:///etc/passwd" });
    expect(!bad.ok && bad.error.issues.join()).toContain("RUNNER_ADVISORY_ENDPOINT");
  });
  it("refuses a relative work dir", () => {
    expect(parseRunnerConfig({ RUNNER_WORK_DIR: "tmp" }).ok).toBe(false);
  });
  it("takes the Semgrep binaries from the parsed config, never from process.env per scan", () => {
    const r = parseRunnerConfig({
      RUNNER_SEMGREP_BIN: "/opt/venv/bin/semgrep",
      RUNNER_SEMGREP_CORE_BIN: "/opt/semgrep-core",
    });
    if (!r.ok) throw new Error(r.error.issues.join("; "));
    expect(resolveSemgrepBin(r.value)).toBe("/opt/venv/bin/semgrep");
    expect(resolveSemgrepCoreBin(r.value)).toBe("/opt/semgrep-core");
    process.env.RUNNER_SEMGREP_CORE_BIN = "/elsewhere/semgrep-core";
    try {
      expect(resolveSemgrepCoreBin(r.value)).toBe("/opt/semgrep-core");
    } finally {
      delete process.env.RUNNER_SEMGREP_CORE_BIN;
    }
  });
});
