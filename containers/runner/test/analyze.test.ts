import { describe, expect, it } from "vitest";
import { judgeTest, parseChannel, type JudgedTest } from "../src/run/analyze.ts";
import type { SandboxOutcome } from "../src/sandbox/sandbox.ts";

const TEST: JudgedTest = {
  id: "adds",
  runtime: "node22",
  resultName: "adds numbers",
  declaringFile: "/work/tests/a.test.mjs",
  timeoutMs: 10_000,
};

function outcome(over: Partial<SandboxOutcome> = {}): SandboxOutcome {
  return {
    started: true,
    startError: "",
    exitCode: 0,
    signal: null,
    timedOut: false,
    outputLimited: false,
    oomKilled: false,
    stdout: "",
    stderr: "",
    channel: "",
    durationMs: 50,
    ...over,
  };
}

const line = (o: object) => JSON.stringify(o) + "\n";
const pass = line({
  k: "result",
  name: "adds numbers",
  file: "/work/tests/a.test.mjs",
  status: "passed",
  durationMs: 3,
  message: "",
});
const end = line({ k: "end" });

describe("channel parsing", () => {
  it("skips malformed lines and counts them", () => {
    const r = parseChannel(`${pass}garbage\n{"no":"kind"}\n${end}`);
    expect(r.records).toHaveLength(2);
    expect(r.malformed).toBe(2);
  });
});

describe("judging one test", () => {
  it("passes a test only on a matching result record", () => {
    expect(judgeTest(TEST, outcome({ channel: pass + end })).status).toBe("passed");
  });
  it("ignores pass lines on stdout and cites them", () => {
    const j = judgeTest(
      TEST,
      outcome({ exitCode: 1, stdout: "ok 1 - adds numbers\n", channel: "" }),
    );
    expect(j.status).toBe("not-run");
    expect(j.exploits.map((e) => e.trigger)).toEqual(["fake-test-output"]);
  });
  it("refuses a result registered outside the hidden test file", () => {
    const fake = line({
      k: "result",
      name: "adds numbers",
      file: "/work/solution.mjs",
      status: "passed",
      durationMs: 0,
      message: "",
    });
    const j = judgeTest(TEST, outcome({ channel: fake + end, exitCode: 0 }));
    expect(j.status).not.toBe("passed");
    expect(j.exploits[0]?.trigger).toBe("fake-test-output");
  });
  it("fails a test on duplicate results", () => {
    const j = judgeTest(TEST, outcome({ channel: pass + pass + end }));
    expect(j.status).toBe("failed");
  });
  it("treats exit 0 without a result as harness exit forcing", () => {
    const j = judgeTest(TEST, outcome({ exitCode: 0 }));
    expect(j.status).toBe("failed");
    expect(j.exploits.map((e) => e.trigger)).toEqual(["harness-exit-forcing"]);
  });
  it("reports a timeout as a crash of stability", () => {
    const j = judgeTest(TEST, outcome({ timedOut: true, signal: "SIGKILL", exitCode: null }));
    expect(j.status).toBe("timeout");
    expect(j.crashes[0]).toContain("timeout");
  });
  it("reports an OOM kill", () => {
    const j = judgeTest(TEST, outcome({ oomKilled: true, signal: "SIGKILL", exitCode: null }));
    expect(j.status).toBe("crashed");
    expect(j.crashes[0]).toContain("out of memory");
  });
  it("turns unhandled rejections and deprecations into warnings", () => {
    const ch =
      pass +
      line({ k: "unhandled-rejection", message: "Error: boom" }) +
      line({ k: "warning", name: "DeprecationWarning", message: "old" }) +
      line({ k: "warning", name: "ExperimentalWarning", message: "x" }) +
      end;
    const j = judgeTest(TEST, outcome({ channel: ch }));
    expect(j.status).toBe("passed");
    expect(j.warnings).toHaveLength(2);
  });
  it("cites network and probing attempts", () => {
    const ch =
      pass +
      line({ k: "network", target: "1.2.3.4:80" }) +
      line({ k: "probe", path: "/proc/1/environ" }) +
      line({ k: "probe", path: "/root/.ssh" }) +
      end;
    const j = judgeTest(TEST, outcome({ channel: ch }));
    expect(j.integrity.map((e) => e.trigger)).toEqual([
      "network-attempt",
      "environment-probing",
      "sandbox-escape-attempt",
    ]);
  });
  it("fails a pytest test when its setup failed even if the call passed", () => {
    const py: JudgedTest = {
      ...TEST,
      runtime: "python3.11",
      resultName: "tests/t.py::test_a",
      declaringFile: null,
    };
    const ch =
      line({
        k: "result",
        name: "tests/t.py::test_a",
        status: "failed",
        durationMs: 1,
        message: "fixture error",
      }) + end;
    expect(judgeTest(py, outcome({ channel: ch, exitCode: 1 })).status).toBe("failed");
  });
});
