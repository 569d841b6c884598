import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, createConfigReader, listConfigVariables } from "../src/config.ts";

const Schema = z.object({
  MAX_BYTES: z.coerce.number().int().positive().describe("largest body"),
  TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000).describe("deadline of one call"),
  KEY: z.string().min(8).optional().describe("a secret"),
});
const read = () => createConfigReader("test", Schema, (v) => ({ ...v }));

describe("createConfigReader", () => {
  it("answers typed values with the documented defaults", () => {
    expect(read()({ MAX_BYTES: "10" })).toEqual({ MAX_BYTES: 10, TIMEOUT_MS: 30_000 });
  });

  it("treats an empty string as unset", () => {
    expect(read()({ MAX_BYTES: "10", TIMEOUT_MS: "", KEY: "" })).toEqual({
      MAX_BYTES: 10,
      TIMEOUT_MS: 30_000,
    });
  });

  it("refuses a bad value, naming the variable and its rule and never the secret", () => {
    const bad = () => read()({ MAX_BYTES: "ten", TIMEOUT_MS: "0", KEY: "hunter2" });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/test configuration is invalid: MAX_BYTES: .*number/);
    expect(bad).toThrow(/TIMEOUT_MS: .*>=1/);
    expect(bad).toThrow(/KEY: /);
    expect(bad).not.toThrow(/hunter2/);
  });

  it("refuses a missing required variable by name", () => {
    expect(() => read()({})).toThrow(/MAX_BYTES: /);
  });

  it("parses once per env object and freezes the answer", () => {
    let gets = 0;
    const env = new Proxy(
      { MAX_BYTES: "10" },
      { get: (t, k) => ((gets += 1), Reflect.get(t, k) as unknown) },
    );
    const readConfig = read();
    const first = readConfig(env);
    const after = gets;
    expect(readConfig(env)).toBe(first);
    expect(gets).toBe(after);
    expect(Object.isFrozen(first)).toBe(true);
  });
});

describe("listConfigVariables", () => {
  it("lists each variable with its description, default and whether it is required", () => {
    expect(listConfigVariables(Schema)).toEqual([
      { name: "MAX_BYTES", description: "largest body", defaultValue: null, required: true },
      {
        name: "TIMEOUT_MS",
        description: "deadline of one call",
        defaultValue: "30000",
        required: false,
      },
      { name: "KEY", description: "a secret", defaultValue: null, required: false },
    ]);
  });
});
