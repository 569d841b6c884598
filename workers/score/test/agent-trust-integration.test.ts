/**
 * The agent profile's trust in the trace, end to end with the real runner (docs/design.md §40):
 * the notes-api partial solution (and the complete one), scored on an agent-profile challenge
 * with an honest trace, and with what a motivated competitor would send instead — a forged
 * trace, claims copied from the public report of identical code, invented disclosures, and the
 * trace of another submission. Each hostile submission gains at most 5 points over the honest
 * trace of the same code and run, and leaves cited evidence; the honest trace is cross-checked
 * and uncapped.
 */
import { env } from "cloudflare:workers";
import {
  BreakdownSchema,
  type BreakdownWire,
  type RunReport,
  type RunUsage,
} from "@bouts/contracts";
import { findScore, recordGatewayCall, submissions } from "@bouts/db";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { processSubmission, type ScoreEnv } from "./score-env.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

const scoreEnv = () => env as unknown as ScoreEnv;

interface FileDigest {
  path: string;
  sha256: string;
}

async function filesOf(name: string): Promise<FileDigest[]> {
  const res = await env.FIXTURES.fetch(`http://fixtures/files/notes-api/${name}`);
  if (!res.ok) throw new Error(`files ${name}: ${res.status}`);
  return res.json();
}

/** What a trace says of its last test run. */
interface LastRun {
  passed: number;
  failed: number;
  tests?: string[];
  failedTests?: string[];
}

/**
 * A `bouts.trace/v1` trace of a plausible run (it writes the code files; package.json is the
 * harness's: an edit to it would be evidence of its own) that ends `endsAgoMs` before now: it reads the
 * task, writes each file (its final `after` digest the given one), runs its tests, fixes,
 * runs them again and reports. `tokens` are spread over its assistant messages.
 */
function buildTrace(o: {
  files: readonly FileDigest[];
  lastRun: LastRun;
  finalText: string;
  endsAt: number;
  messages?: number;
  tokensPerMessage?: [number, number];
  /** Fabricated: a few actions, no failing run on the way. */
  tidy?: boolean;
}): string {
  const events: Record<string, unknown>[] = [];
  const files = o.files.filter((f) => f.path !== "package.json");
  const steps = o.tidy ? 6 : 14 + files.length * 2;
  let t = o.endsAt - steps * 30_000;
  const startedAt = new Date(t - 30_000).toISOString();
  const ts = () => new Date((t += 30_000)).toISOString();
  const [tin, tout] = o.tokensPerMessage ?? [4000, 500];
  let messages = o.messages ?? (o.tidy ? 2 : 6);
  const say = (text?: string) => {
    if (messages <= 0) return;
    messages -= 1;
    events.push({
      type: "message",
      ts: ts(),
      role: "assistant",
      tokensIn: tin,
      tokensOut: tout,
      ...(text ? { text } : {}),
    });
  };
  const call = (name: string, args: string, outcome: "ok" | "error" = "ok") =>
    events.push({
      type: "tool_call",
      ts: ts(),
      name,
      argsDigest: `sha256:${name}-${args.length}-${events.length}`,
      args,
      outcome,
      category: name === "read_file" ? "read" : "exec",
    });
  say();
  call("read_file", '{"path":"README.md"}');
  if (!o.tidy) call("read_file", '{"path":"package.json"}');
  say();
  for (const f of files)
    events.push({ type: "edit", ts: ts(), path: f.path, kind: "create", after: "sha256:0" });
  if (!o.tidy) {
    events.push({
      type: "test_run",
      ts: ts(),
      command: "npm test",
      passed: 4,
      failed: 6,
    });
    say();
    call("read_file", '{"path":"app.mjs"}');
    say();
  }
  for (const f of files)
    events.push({
      type: "edit",
      ts: ts(),
      path: f.path,
      kind: "modify",
      before: "sha256:0",
      after: `sha256:${f.sha256}`,
    });
  events.push({ type: "test_run", ts: ts(), command: "npm test", ...o.lastRun });
  say();
  events.push({
    type: "message",
    ts: ts(),
    role: "assistant",
    final: true,
    text: o.finalText,
    ...(messages > 0 ? { tokensIn: tin, tokensOut: tout } : {}),
  });
  const header = {
    format: "bouts.trace/v1",
    agent: "agent-under-test",
    model: "model-a",
    challengeId: "notes-api",
    startedAt,
  };
  return [header, ...events.map((e, i) => ({ ...e, seq: i + 1 }))]
    .map((l) => JSON.stringify(l))
    .join("\n");
}

const breakdownOf = async (id: string): Promise<BreakdownWire> => {
  const score = await findScore(db(), id);
  expect(score, `no score for ${id}`).not.toBeNull();
  return BreakdownSchema.parse(JSON.parse(score!.breakdown));
};
const finalOf = async (id: string) => (await breakdownOf(id)).final.unrounded.value;
const integrityOf = async (id: string) =>
  (await breakdownOf(id)).adjustments.find((a) => a.key === "integrity")!;
const componentOf = async (id: string, key: string) =>
  (await breakdownOf(id)).components.find((c) => c.key === key)!;

/**
 * Model calls the metering gateway recorded for the agent on the challenge, a few minutes ago
 * (before the submission that follows is received): `n` calls of `tokens` each.
 */
async function seedCalls(
  agentId: string,
  challengeId: string,
  n: number,
  [tokensIn, tokensOut]: [number, number],
): Promise<void> {
  const at = Date.now() - 5 * 60_000;
  for (let i = 0; i < n; i++)
    await recordGatewayCall(db(), {
      id: `call-${agentId}-${i}`,
      agentId,
      challengeId,
      model: "model-a",
      tokensIn,
      tokensOut,
      status: 200,
      failure: null,
      streamed: false,
      requestBytes: 2048,
      startedAt: at + i * 1000,
      finishedAt: at + i * 1000 + 800,
    });
}

async function score(id: string): Promise<void> {
  const outcome = await processSubmission(scoreEnv(), id, Date.now);
  expect(outcome.action, outcome.note).toBe("ack");
  const row = (await db().select().from(submissions).where(eq(submissions.id, id)).get())!;
  expect(row.status, row.failureReason ?? "").toBe("scored");
}

// Each test scores its own agents' submissions against what the honest run (beforeAll) left, so
// they run at once: every run of the partial code sits out two 10 s test limits (a hanging hidden
// test and a hanging drawn one), and the score tests' runner takes two runs at a time.
describe.concurrent("an agent-run score rests on what the platform saw", () => {
  let challenge: Awaited<ReturnType<typeof seedChallenge>>;
  let partial: FileDigest[];
  let complete: FileDigest[];
  /** The honest trace of the partial run: its own tests, 3 failing, one real known issue. */
  const honestPartial = (endsAt: number, finalText = HONEST_REPORT) =>
    buildTrace({
      files: partial,
      lastRun: { passed: 7, failed: 3 },
      finalText,
      endsAt,
    });
  const HONEST_REPORT = "Implemented the service. Known issue: a few edge cases still fail.";
  const ids: Record<string, string> = {};
  /** The static test ids the runner passed and failed on the partial code. */
  let passedIds: string[] = [];
  let failedIds: string[] = [];

  beforeAll(async () => {
    challenge = await seedChallenge("notes-api", "latest", {
      profile: "agent",
      family: "blacksite-debug",
      limits: JSON.stringify({ tokenBudget: 60_000 }),
    });
    partial = await filesOf("partial");
    complete = await filesOf("complete");

    // The honest run of the partial code, scored first: its public report is then readable.
    const honest = await seedAgent(challenge);
    // Its six model calls went through the gateway, as its trace says (4000 + 500 tokens each).
    await seedCalls(honest, challenge.challengeId, 6, [4000, 500]);
    ids.honest = await seedSubmission(challenge, honest, "partial", 1, {
      trace: honestPartial(Date.now() - 60_000),
    });
    await score(ids.honest);
    // The verdicts as the earlier report shows them.
    const stored = await env.ARTIFACTS.get((await findScore(db(), ids.honest))!.reportKey);
    const verdicts = (await stored!.json<RunReport>()).staticTests;
    passedIds = verdicts.filter((t) => t.status === "passed").map((t) => t.id);
    failedIds = verdicts.filter((t) => t.status !== "passed").map((t) => t.id);
  });

  it("keeps full trust in an honest trace: cross-checked, uncapped, its disclosure confirmed", async () => {
    expect(failedIds.length).toBeGreaterThan(0);
    for (const key of ["process", "strategy", "recovery", "efficiency"]) {
      const c = await componentOf(ids.honest!, key);
      expect(c.provenance, key).toMatchObject({ kind: "cross-checked", cap: null });
    }
    // Token burn is the gateway's count, and so is the cost's.
    const efficiency = await componentOf(ids.honest!, "efficiency");
    expect(efficiency.details).toMatchObject({ tokensUsed: 27_000, tokensProvenance: "observed" });
    const usage = JSON.parse((await findScore(db(), ids.honest!))!.usage!) as RunUsage;
    expect(usage).toMatchObject({
      tokensSource: "gateway",
      tokens: { tokensIn: 24_000, events: 6 },
    });
    const integrity = await integrityOf(ids.honest!);
    const items = integrity.evidence.map((e) => e.item);
    expect(items).toContain("known-failure-disclosed");
    expect(items.filter((i) => /^(trace-contradicted|test-file-modified)/.test(i))).toEqual([]);
  });

  it("a forged trace of the same code gains nothing and is cited with the runner's numbers", async () => {
    const agent = await seedAgent(challenge);
    // The gateway saw twelve long calls; the forged trace reports two short ones.
    await seedCalls(agent, challenge.challengeId, 12, [7000, 600]);
    const forged = buildTrace({
      files: partial,
      tidy: true,
      // The forger read the test ids off a public report, and says every one passed.
      lastRun: {
        passed: passedIds.length + failedIds.length,
        failed: 0,
        tests: [...passedIds, ...failedIds],
      },
      finalText: "All tests pass. No known issues.",
      endsAt: Date.now() - 60_000,
    });
    ids.forged = await seedSubmission(challenge, agent, "partial", 1, { trace: forged });
    await score(ids.forged);
    expect(await finalOf(ids.forged)).toBeLessThanOrEqual((await finalOf(ids.honest!)) + 5);
    const item = (await integrityOf(ids.forged)).evidence.find((e) =>
      e.item.startsWith("trace-contradicted"),
    );
    expect(item?.citation).toContain(failedIds[0]!);
    expect(item?.citation).toMatch(/91200|91 200|91,200/);
    const process = await componentOf(ids.forged, "process");
    expect(process.provenance).toMatchObject({ kind: "self-reported", cap: { max: 25 } });
  });

  it("claims copied from the public report of identical code count for nothing", async () => {
    const agent = await seedAgent(challenge);
    await seedCalls(agent, challenge.challengeId, 6, [4000, 500]);
    // Every verdict of the earlier report, restated as a confident claim: all of them right.
    const claims = [
      ...passedIds.map((id, i) => ({
        id: `pass-${i}`,
        statement: `${id} passes`,
        confidence: 0.95,
        tests: [id],
      })),
      ...failedIds.map((id, i) => ({
        id: `fail-${i}`,
        statement: `${id} may fail`,
        confidence: "uncertain" as const,
        tests: [id],
      })),
    ];
    ids.copied = await seedSubmission(challenge, agent, "partial", 1, {
      trace: honestPartial(Date.now() - 60_000),
      claims: JSON.stringify(claims),
    });
    await score(ids.copied);
    const b = await breakdownOf(ids.copied);
    const calibration = b.adjustments.find((a) => a.key === "calibration")!;
    expect(calibration.points.value).toBe(0);
    expect(calibration.detail).toContain("outcome-visible");
    expect(await finalOf(ids.copied)).toBeLessThanOrEqual((await finalOf(ids.honest!)) + 5);
  });

  it("a disclosure the runner does not confirm earns nothing and is cited", async () => {
    const agent = await seedAgent(challenge);
    await seedCalls(agent, challenge.challengeId, 6, [4000, 500]);
    const passing = passedIds[0]!;
    ids.invented = await seedSubmission(challenge, agent, "partial", 1, {
      trace: honestPartial(
        Date.now() - 60_000,
        `Implemented everything. Known issue: ${passing} still fails when the body is empty.`,
      ),
    });
    await score(ids.invented);
    const items = (await integrityOf(ids.invented)).evidence;
    expect(items.map((e) => e.item)).not.toContain("known-failure-disclosed");
    const unconfirmed = items.find((e) => e.item === "disclosure-unconfirmed");
    expect(unconfirmed?.points).toBe(0);
    expect(await finalOf(ids.invented)).toBeLessThanOrEqual((await finalOf(ids.honest!)) + 5);
  });

  it("the trace of an earlier submission, sent again with other code, is contradicted", async () => {
    // The honest run of the complete code, for comparison.
    const honestAgent = await seedAgent(challenge);
    await seedCalls(honestAgent, challenge.challengeId, 6, [4000, 500]);
    ids.honestComplete = await seedSubmission(challenge, honestAgent, "complete", 1, {
      trace: buildTrace({
        files: complete,
        lastRun: { passed: 10, failed: 0 },
        finalText: "Implemented every endpoint; all my tests pass.",
        endsAt: Date.now() - 60_000,
      }),
    });
    await score(ids.honestComplete);
    // The reuser: a first submission of the partial code with its honest trace, then the
    // complete code with that same trace.
    const agent = await seedAgent(challenge);
    const oldTrace = honestPartial(Date.now() - 20 * 60_000);
    const first = await seedSubmission(challenge, agent, "partial", 1, { trace: oldTrace });
    await score(first);
    ids.reused = await seedSubmission(challenge, agent, "complete", 2, { trace: oldTrace });
    await score(ids.reused);
    expect(await finalOf(ids.reused)).toBeLessThanOrEqual((await finalOf(ids.honestComplete)) + 5);
    const item = (await integrityOf(ids.reused)).evidence.find((e) =>
      e.item.startsWith("trace-contradicted"),
    );
    expect(item?.points).toBe(-15);
    expect(item?.citation).toMatch(/app\.mjs/);
    expect(item?.citation).toMatch(/previous submission/);
  });
});
