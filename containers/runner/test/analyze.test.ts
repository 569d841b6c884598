import { describe, expect, it } from "vitest";
import { observeRecord, parseObservedRecord, type ObservedRecord } from "../src/run/analyze.ts";

const observe = (v: unknown, runtime: "node22" | "python3.11" = "node22") => {
  const r = parseObservedRecord(v);
  return r ? observeRecord(r, "subject", runtime) : "ignored";
};

describe("checking observation records", () => {
  it("keeps records whose fields are strings, cut to 300 characters", () => {
    expect(parseObservedRecord({ k: "network", target: "1.2.3.4:80" })).toEqual({
      k: "network",
      target: "1.2.3.4:80",
    });
    const long = parseObservedRecord({ k: "uncaught-exception", message: "x".repeat(5000) });
    expect(long && "message" in long ? long.message.length : 0).toBe(300);
  });

  it("ignores, without coercing, fields that are objects whose toString is not callable", () => {
    const poison = { toString: 1, valueOf: 2 };
    expect(() => String(poison)).toThrow(TypeError);
    for (const v of [
      { k: "warning", name: "DeprecationWarning", message: poison },
      { k: "warning", name: poison, message: "x" },
      { k: "unhandled-rejection", message: poison },
      { k: "uncaught-exception", message: { toString: null } },
      { k: "network", target: 80 },
      { k: "dns", host: ["a"] },
      { k: "probe", path: null },
      { k: "test-read" },
      { k: poison },
      { k: "result", name: "adds", status: "passed" },
      [{ k: "network", target: "x" }],
      null,
      "warning",
    ]) {
      expect(() => parseObservedRecord(v)).not.toThrow();
      expect(parseObservedRecord(v)).toBeNull();
    }
  });

  it("reads only own fields: an inherited one is not the record's", () => {
    const inherited = Object.create({ target: "1.2.3.4:80" }) as Record<string, unknown>;
    inherited.k = "network";
    expect(parseObservedRecord(inherited)).toBeNull();
  });
});

describe("observing the subject", () => {
  it("turns unhandled rejections and deprecations into warnings, uncaught exceptions into crashes", () => {
    expect(observe({ k: "unhandled-rejection", message: "Error: boom" })).toEqual({
      kind: "warning",
      text: "subject: unhandled promise rejection: Error: boom",
    });
    expect(observe({ k: "warning", name: "DeprecationWarning", message: "old" })).toEqual({
      kind: "warning",
      text: "subject: DeprecationWarning: old",
    });
    expect(observe({ k: "warning", name: "ExperimentalWarning", message: "x" })).toBeNull();
    expect(observe({ k: "uncaught-exception", message: "TypeError: x\n  at f" })).toEqual({
      kind: "crash",
      text: "subject: uncaught exception: TypeError: x",
    });
  });

  it("cites network, probing and hidden-test reads", () => {
    const records: ObservedRecord[] = [
      { k: "network", target: "1.2.3.4:80" },
      { k: "probe", path: "/proc/1/environ" },
      { k: "probe", path: "/root/.ssh" },
      { k: "test-read", path: "/work/tests/a.test.mjs" },
    ];
    expect(
      records.map((r) => {
        const e = observeRecord(r, "subject", "python3.11");
        return e?.kind === "integrity" ? e.observation.trigger : null;
      }),
    ).toEqual([
      "network-attempt",
      "environment-probing",
      "sandbox-escape-attempt",
      "hidden-test-access",
    ]);
  });
});
