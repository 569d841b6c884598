/** The ingest role's one configuration (src/config.ts, docs/design.md §38). */
import { env } from "cloudflare:workers";
import { ConfigError } from "@bouts/edge";
import { describe, expect, it } from "vitest";
import { readConfig } from "../src/config.ts";

const VARS = {
  MAX_ARCHIVE_BYTES: "10485760",
  MAX_TRACE_BYTES: "5242880",
  MAX_CLAIMS_BYTES: "65536",
  MAX_BUNDLE_BYTES: "52428800",
  IDEMPOTENCY_TTL_SECONDS: "86400",
};

describe("the ingest configuration", () => {
  it("reads the test Worker's vars", () => {
    expect(readConfig(env)).toMatchObject({
      maxArchiveBytes: 10_485_760,
      runnerUrl: expect.any(String) as unknown,
    });
  });

  it("gives a missing optional variable its documented default", () => {
    expect(readConfig({ ...VARS, RUNNER_URL: "" })).toMatchObject({
      runnerUrl: "",
      runnerSharedSecret: undefined,
      runnerCeilingMs: 1800_000,
      runnerWindowMs: 3600_000,
      maxSubmissionsInFlight: 4,
    });
  });

  it("refuses a bad value, naming the variable and the rule", () => {
    const bad = (vars: Record<string, string>) => () => readConfig({ ...VARS, ...vars });
    expect(bad({ MAX_ARCHIVE_BYTES: "10MiB" })).toThrow(ConfigError);
    expect(bad({ MAX_ARCHIVE_BYTES: "10MiB" })).toThrow(/MAX_ARCHIVE_BYTES: .*number/);
    expect(bad({ IDEMPOTENCY_TTL_SECONDS: "60" })).toThrow(/IDEMPOTENCY_TTL_SECONDS: .*86400/);
    expect(bad({ MAX_SUBMISSIONS_IN_FLIGHT: "0" })).toThrow(/MAX_SUBMISSIONS_IN_FLIGHT: /);
    expect(bad({ RUNNER_URL: "runner:8080" })).toThrow(/RUNNER_URL: /);
    expect(bad({ RUNNER_SHARED_SECRET: "short" })).toThrow(/RUNNER_SHARED_SECRET: .*32/);
    expect(bad({ RUNNER_SHARED_SECRET: "short" })).not.toThrow(/short/);
  });

  it("refuses a missing required variable by name", () => {
    expect(() => readConfig({ ...VARS, MAX_BUNDLE_BYTES: undefined })).toThrow(
      /MAX_BUNDLE_BYTES: /,
    );
  });

  it("is parsed once per env, not per request", () => {
    let reads = 0;
    const counted = new Proxy(VARS, {
      get: (t, k) => ((reads += 1), Reflect.get(t, k) as unknown),
    });
    const first = readConfig(counted);
    const afterFirst = reads;
    for (let i = 0; i < 3; i++) expect(readConfig(counted)).toBe(first);
    expect(reads).toBe(afterFirst);
    expect(Object.isFrozen(first)).toBe(true);
  });
});
