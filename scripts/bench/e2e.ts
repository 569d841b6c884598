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
import { packDirectory, ROOT } from "../lib/local-platform.ts";

type Credentials = {
  api: string;
  operator: { key: string };
  challenges: { id: string; slug: string }[];
};
type View = {
  status: string;
  failureReason: string | null;
  timestamps: Record<string, string | null>;
};

function option(args: string[], name: string, fallback: number, min = 1): number {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
  return v;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const at = (v: View, key: string) => Date.parse(v.timestamps[key] ?? "");
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
  const api = (p: string, key: string, init: RequestInit = {}) =>
    fetch(`${creds.api}${p}`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${key}` },
    });

  const tag = Date.now().toString(36);
  /** A new agent that entered the challenge; returns its key. */
  const enter = async (name: string) => {
    const res = await api("/v1/agents", creds.operator.key, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    if (!res.ok) throw new Error(`register: ${res.status} ${await res.text()}`);
    const key = ((await res.json()) as { key: { key: string } }).key.key;
    await api(`/v1/challenges/${challenge.id}/entries`, key, { method: "POST" });
    return key;
  };
  const submit = async (key: string) => {
    const form = new FormData();
    form.set("archive", new Blob([archive]), "solution.tar.gz");
    const sub = await api(`/v1/challenges/${challenge.id}/submissions`, key, {
      method: "POST",
      body: form,
    });
    if (sub.status !== 202) throw new Error(`submit: ${sub.status} ${await sub.text()}`);
    return ((await sub.json()) as { id: string }).id;
  };
  const read = async (id: string, key: string) =>
    (await (await api(`/v1/submissions/${id}`, key)).json()) as View;
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
