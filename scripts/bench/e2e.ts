/**
 * `npm run bench -- e2e [--singles N] [--submissions N]` — against a running `npm start`: first
 * N (10) submissions of the deep-merge example's complete solution one at a time, each waiting
 * for its score (the idle platform's latency: p50 of the platform's own received → scored
 * timestamps, and of submit → scored as the client saw it); then N (50) submissions, each by its
 * own new agent, sent at once through the HTTP API: the median and p95 time from submission to
 * ranked score and submissions scored per minute. Loopback only; each phase bounded by --timeout
 * seconds (900). BOUTS_CREDENTIALS names another instance's credentials (as for `npm start`).
 */
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { createBoutsClient, submit as submitTo, unwrap, type Schemas } from "@bouts/client";
import { packDirectory, ROOT } from "../lib/local-platform.ts";

type Credentials = {
  api: string;
  operator: { key: string };
  challenges: { id: string; slug: string }[];
};
type View = Schemas["Submission"];

function option(args: string[], name: string, fallback: number, min = 1): number {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
  return v;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const at = (v: View, key: keyof View["timestamps"]) => Date.parse(v.timestamps[key] ?? "");
const loadAverage = () => loadavg()[0]!.toFixed(2);

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;

export default async function bench(args: string[]): Promise<void> {
  const singles = option(args, "singles", 10, 0);
  const count = option(args, "submissions", 50);
  const timeoutMs = option(args, "timeout", 900) * 1000;
  const file = path.resolve(ROOT, process.env.BOUTS_CREDENTIALS ?? ".dev/credentials.json");
  if (!existsSync(file)) {
    console.error("bench e2e measures the running platform: start it first with `npm start`");
    process.exit(2);
  }
  const creds = JSON.parse(readFileSync(file, "utf8")) as Credentials;
  const challenge = creds.challenges.find((c) => c.slug === "deep-merge");
  if (!challenge) throw new Error("the deep-merge example challenge is not published");
  const archive = packDirectory(path.join(ROOT, "challenges/deep-merge/submissions/complete"));
  // The typed client (packages/client), one per key: every call is checked against the
  // OpenAPI document at compile time.
  const as = (key: string) => createBoutsClient({ baseUrl: creds.api, key });
  const operator = as(creds.operator.key);

  const tag = Date.now().toString(36);
  /** A new agent that entered the challenge; returns its client. */
  const enter = async (name: string) => {
    const created = await unwrap(operator.POST("/v1/agents", { body: { name } }));
    const agent = as(created.key.key);
    await unwrap(
      agent.POST("/v1/challenges/{id}/entries", { params: { path: { id: challenge.id } } }),
    );
    return agent;
  };
  type Agent = Awaited<ReturnType<typeof enter>>;
  const submit = async (agent: Agent) =>
    (await submitTo(agent, challenge.id, { archive })).submission.id;
  const read = (id: string, agent: Agent) =>
    unwrap(agent.GET("/v1/submissions/{id}", { params: { path: { id } } }));
  const settled = (v: View) => v.status === "scored" || v.status === "failed";

  console.log(`load_avg_1m_start: ${loadAverage()}`);
  // Idle latency: one submission at a time, polled closely (the agent's read limit allows it).
  const single: { platform: number; client: number; queue: number }[] = [];
  for (let i = 0; i < singles; i++) {
    const key = await enter(`bench-${tag}-single-${i}`);
    const sent = performance.now();
    const id = await submit(key);
    let view = await read(id, key);
    while (!settled(view) && performance.now() - sent < timeoutMs) {
      await sleep(100);
      view = await read(id, key);
    }
    if (view.status !== "scored") throw new Error(`single submission ${id}: ${view.status}`);
    single.push({
      platform: at(view, "scored") - at(view, "received"),
      client: performance.now() - sent,
      queue: at(view, "running") - at(view, "received"),
    });
  }
  if (singles > 0) {
    const p50 = (k: "platform" | "client" | "queue") =>
      quantile(
        single.map((s) => s[k]).sort((a, b) => a - b),
        0.5,
      );
    console.log(`single_submissions: ${singles}`);
    console.log(`single_latency_p50_ms: ${p50("platform")}`);
    console.log(`single_latency_client_p50_ms: ${Math.round(p50("client"))}`);
    console.log(`single_queue_wait_p50_ms: ${p50("queue")}`);
    console.log(`load_avg_1m_after_singles: ${loadAverage()}`);
  }

  const subs = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const key = await enter(`bench-${tag}-${i}`);
      return { key, id: await submit(key) };
    }),
  );

  const done = new Map<string, View>();
  const started = Date.now();
  while (done.size < subs.length && Date.now() - started < timeoutMs) {
    for (const s of subs.filter((x) => !done.has(x.id))) {
      const view = await read(s.id, s.key);
      if (settled(view)) done.set(s.id, view);
    }
    if (done.size < subs.length) await sleep(1000);
  }
  const scored = [...done.values()].filter((v) => v.status === "scored");
  const latencies = scored
    .map((v) => at(v, "scored") - at(v, "received"))
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  const first = Math.min(...scored.map((v) => at(v, "received")));
  const last = Math.max(...scored.map((v) => at(v, "scored")));
  console.log(`e2e_submissions: ${count}`);
  console.log(`e2e_scored: ${scored.length}`);
  console.log(`e2e_failed: ${done.size - scored.length}`);
  console.log(`e2e_unfinished: ${subs.length - done.size}`);
  console.log(`e2e_median_ms: ${quantile(latencies, 0.5)}`);
  console.log(`e2e_p95_ms: ${quantile(latencies, 0.95)}`);
  console.log(
    `e2e_scored_per_min: ${((scored.length * 60_000) / Math.max(1, last - first)).toFixed(2)}`,
  );
  console.log(`load_avg_1m_end: ${loadAverage()}`);
}
