/**
 * Ingest validates the telemetry trace part before anything is stored: a good trace is
 * accepted and stored under its SHA-256; a malformed one is a 422 problem+json whose detail
 * names the line (or the OTel span); an oversized one is a 413. Refusals leave no row, no
 * object and no queue message.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import {
  call,
  createAgent,
  expectProblem,
  publishedChallenge,
  seedOperator,
  submissionForm,
  submit,
  tarGz,
} from "./helpers.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const line = (o: object) => JSON.stringify(o);
const ts = (s: number) => new Date(Date.UTC(2026, 2, 2, 9, 0, s)).toISOString();
const GOOD = [
  line({ format: "bouts.trace/v1", agent: "a" }),
  line({ type: "message", seq: 1, ts: ts(1), role: "user", text: "Fix it." }),
  line({
    type: "tool_call",
    seq: 2,
    ts: ts(2),
    name: "read_file",
    argsDigest: "d1",
    outcome: "ok",
  }),
  line({ type: "edit", seq: 3, ts: ts(3), path: "src/a.js", kind: "modify" }),
  line({
    type: "test_run",
    seq: 4,
    ts: ts(4),
    command: "npm test",
    passed: 3,
    failed: 0,
    outcome: "ok",
  }),
];

let n = 0;
const solution = () => tarGz({ "src/index.js": `export const v = ${++n};\n` });

async function arena() {
  const op = await seedOperator();
  const agent = await createAgent(op.token);
  const id = await publishedChallenge(op.token, `t${crypto.randomUUID().slice(0, 8)}`);
  const entered = await call(`/v1/challenges/${id}/entries`, {
    method: "POST",
    token: agent.token,
  });
  expect(entered.status).toBe(201);
  return { agent, id };
}

async function stored() {
  const row = await env.DB.prepare("SELECT COUNT(*) AS subs FROM submissions").first<{
    subs: number;
  }>();
  const traces = (await env.ARTIFACTS.list({ prefix: "traces/" })).objects.length;
  return { subs: row?.subs ?? 0, traces };
}

describe("trace validation at submit", () => {
  it("accepts a good JSONL trace and stores it under its SHA-256", async () => {
    const { agent, id } = await arena();
    const res = await submit(
      id,
      agent.token,
      submissionForm(await solution(), { trace: enc(GOOD.join("\n")) }),
    );
    expect(res.status).toBe(202);
    const body = await res.json<{ trace: { sha256: string } | null }>();
    const object = await env.ARTIFACTS.get(`traces/${body.trace!.sha256}`);
    expect(await object?.text()).toBe(GOOD.join("\n"));
  });

  it.each([
    ["bad JSON on line 3", [GOOD[0], GOOD[1], "{not json", GOOD[3]], /^Invalid trace: line 3: /],
    [
      "a bad event field on line 4",
      [
        GOOD[0],
        GOOD[1],
        GOOD[2],
        line({ type: "edit", seq: 3, ts: ts(3), path: "a", kind: "rename" }),
      ],
      /^Invalid trace: line 4: kind: /,
    ],
    [
      "a sequence number that goes back on line 3",
      [GOOD[0], GOOD[2], line({ type: "message", seq: 1, ts: ts(1), role: "user", text: "x" })],
      /^Invalid trace: line 3: /,
    ],
    [
      "a wrong header on line 1",
      [line({ format: "bouts.trace/v9" }), GOOD[1]],
      /^Invalid trace: line 1: /,
    ],
    ["a line over 64 KiB (line 2)", [GOOD[0], "x".repeat(70_000)], /^Invalid trace: line 2: /],
    ["text that is no trace at all", ["hello"], /^Invalid trace: neither a bouts\.trace\/v1/],
  ])("answers %s with 422 naming it, and stores nothing", async (_label, lines, detail) => {
    const { agent, id } = await arena();
    const before = await stored();
    const send = vi.spyOn(env.SUBMISSIONS, "send");
    const res = await submit(
      id,
      agent.token,
      submissionForm(await solution(), { trace: enc(lines.join("\n")) }),
    );
    const problem = await expectProblem(res, 422);
    expect(problem.detail).toMatch(detail);
    expect((problem.errors as { path: string }[])[0]!.path).toBe("trace");
    expect(await stored()).toEqual(before);
    expect(send).not.toHaveBeenCalled();
    send.mockRestore();
  });

  it("answers a trace that is not UTF-8 with 422", async () => {
    const { agent, id } = await arena();
    const res = await submit(
      id,
      agent.token,
      submissionForm(await solution(), { trace: new Uint8Array([0xff, 0xfe, 0x00]) }),
    );
    expect((await expectProblem(res, 422)).detail).toMatch(/not UTF-8/);
  });

  it("answers an oversized trace with 413 before storing anything", async () => {
    const { agent, id } = await arena();
    const before = await stored();
    const big = enc(`${GOOD.join("\n")}\n${" ".repeat(5 * 1024 * 1024)}`);
    const res = await submit(id, agent.token, submissionForm(await solution(), { trace: big }));
    expect((await expectProblem(res, 413)).detail).toMatch(/trace/);
    expect(await stored()).toEqual(before);
  });
});
