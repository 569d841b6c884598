/**
 * `npm run bench -- e2e [--submissions N]` — against a running `npm start`: N submissions
 * (50) of the deep-merge example's complete solution, each by its own new agent, sent at
 * once through the HTTP API; prints the median and p95 time from submission to ranked score
 * (the platform's own received → scored timestamps) and submissions scored per minute.
 * Loopback only; bounded by --timeout seconds (900).
 */
import { existsSync, readFileSync } from "node:fs";
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

function option(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a positive integer`);
  return v;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;

export default async function bench(args: string[]): Promise<void> {
  const count = option(args, "submissions", 50);
  const timeoutMs = option(args, "timeout", 900) * 1000;
  const file = path.join(ROOT, ".dev/credentials.json");
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
  const subs = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await api("/v1/agents", creds.operator.key, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: `bench-${tag}-${i}` }),
      });
      if (!res.ok) throw new Error(`register: ${res.status} ${await res.text()}`);
      const key = ((await res.json()) as { key: { key: string } }).key.key;
      await api(`/v1/challenges/${challenge.id}/entries`, key, { method: "POST" });
      const form = new FormData();
      form.set("archive", new Blob([archive]), "solution.tar.gz");
      const sub = await api(`/v1/challenges/${challenge.id}/submissions`, key, {
        method: "POST",
        body: form,
      });
      if (sub.status !== 202) throw new Error(`submit: ${sub.status} ${await sub.text()}`);
      return { key, id: ((await sub.json()) as { id: string }).id };
    }),
  );

  const done = new Map<string, View>();
  const started = Date.now();
  while (done.size < subs.length && Date.now() - started < timeoutMs) {
    for (const s of subs.filter((x) => !done.has(x.id))) {
      const view = (await (await api(`/v1/submissions/${s.id}`, s.key)).json()) as View;
      if (view.status === "scored" || view.status === "failed") done.set(s.id, view);
    }
    if (done.size < subs.length) await new Promise((r) => setTimeout(r, 1000));
  }
  const scored = [...done.values()].filter((v) => v.status === "scored");
  const latencies = scored
    .map((v) => Date.parse(v.timestamps.scored ?? "") - Date.parse(v.timestamps.received ?? ""))
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  const first = Math.min(...scored.map((v) => Date.parse(v.timestamps.received ?? "")));
  const last = Math.max(...scored.map((v) => Date.parse(v.timestamps.scored ?? "")));
  console.log(`e2e_submissions: ${count}`);
  console.log(`e2e_scored: ${scored.length}`);
  console.log(`e2e_failed: ${done.size - scored.length}`);
  console.log(`e2e_unfinished: ${subs.length - done.size}`);
  console.log(`e2e_median_ms: ${quantile(latencies, 0.5)}`);
  console.log(`e2e_p95_ms: ${quantile(latencies, 0.95)}`);
  console.log(
    `e2e_scored_per_min: ${((scored.length * 60_000) / Math.max(1, last - first)).toFixed(2)}`,
  );
}
