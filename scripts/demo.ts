/**
 * `npm run demo` — against a running `npm start`: registers one demo agent per example
 * submission (complete, partial, insecure, hostile) of every example challenge, has each enter
 * and submit through the HTTP API — and, on the agent-run variant (notes-api-agent), the
 * complete code three times by three agents that first call the model through the platform's
 * metering gateway, each with a trace shaped after the efficient-honest, wasteful or tamperer
 * fixture and true to what the gateway saw (scripts/lib/demo-traces.ts) — waits until every
 * submission is scored or failed, then prints each leaderboard (with each
 * entry's cost and the score-against-cost frontier) and each score's breakdown summary; then
 * closes the one example challenge with a public/private split and prints its private board
 * beside its public one; last, uploads a second version of deep-merge that adds a test, waits
 * for the shadow rescores, prints the diff report, promotes it and prints the promoted board.
 * Loopback only; bounded in time.
 */
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { createBoutsClient, submit, unwrap } from "@bouts/client";
import { closeAndShowPrivateBoard, hasSplit } from "./lib/demo-private-board.ts";
import {
  buildDemoTrace,
  DEMO_AGENT_MODELS,
  DEMO_TRACE_KINDS,
  planDemoCalls,
  type DemoTraceKind,
  type GatewayCall,
} from "./lib/demo-traces.ts";
import { rescoreAndPromote, SECOND_VERSION_CHALLENGE } from "./lib/demo-rescore.ts";
import { packDirectory, ROOT } from "./lib/local-platform.ts";

type Credentials = {
  api: string;
  operator: { id: string; key: string };
  challenges: { id: string; slug: string; status: string }[];
};

const CREDENTIALS = path.resolve(ROOT, process.env.BOUTS_CREDENTIALS ?? ".dev/credentials.json");
const KINDS = ["complete", "partial", "insecure", "hostile", "vulnerable-dependency"];
const DEADLINE_MS = Number(process.env.DEMO_TIMEOUT_MS ?? 15 * 60 * 1000);

if (!existsSync(CREDENTIALS)) {
  console.error("no .dev/credentials.json: start the platform first with `npm start`");
  process.exit(2);
}
const creds = JSON.parse(readFileSync(CREDENTIALS, "utf8")) as Credentials;
const api = creds.api;

// The typed client (packages/client): every call below is typed by the OpenAPI document.
const operator = createBoutsClient({ baseUrl: api, key: creds.operator.key });
const anonymous = createBoutsClient({ baseUrl: api });

/** The public breakdown of a submission: the body, or the status it answered with. */
async function readBreakdown(id: string) {
  const { data, response } = await anonymous.GET("/v1/submissions/{id}/breakdown", {
    params: { path: { id } },
  });
  return data
    ? { ok: true as const, value: data }
    : { ok: false as const, status: response.status };
}

type Submitted = {
  challenge: string;
  kind: string;
  agent: string;
  agentId: string;
  agentKey: string;
  id: string;
};
const submitted: Submitted[] = [];
const runId = Date.now().toString(36);

/** What each agent-run demo agent's model calls through the gateway came to. */
const observed = new Map<string, string>();

/**
 * A demo agent's model calls through the metering gateway (docs/gateway.md), made as an agent
 * would: the OpenAI chat-completions API at the challenge's gateway, with its agent key. Null
 * when the gateway is off (a platform started without an upstream).
 */
async function callModels(
  challengeId: string,
  key: string,
  kind: DemoTraceKind,
  files: Map<string, Uint8Array>,
) {
  const calls: GatewayCall[] = [];
  for (const planned of planDemoCalls(kind, files)) {
    const res = await fetch(`${api}/v1/challenges/${challengeId}/gateway/v1/chat/completions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ model: DEMO_AGENT_MODELS[kind], ...planned }),
    });
    const body = (await res.json()) as {
      model?: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
      detail?: string;
    };
    if (res.status !== 200 || !body.usage) {
      console.log(
        `  the gateway answered ${res.status} (${body.detail ?? "no usage"}): the fixture trace is submitted instead`,
      );
      return null;
    }
    calls.push({
      model: body.model ?? DEMO_AGENT_MODELS[kind],
      tokensIn: body.usage.prompt_tokens,
      tokensOut: body.usage.completion_tokens,
      at: Date.now(),
    });
  }
  return calls;
}

/** The files of a submission folder, by path, as its archive holds them. */
function readFiles(dir: string): Map<string, Uint8Array> {
  return new Map(readdirSync(dir).map((f) => [f, new Uint8Array(readFileSync(path.join(dir, f)))]));
}

async function submitAs(
  challenge: { id: string; slug: string },
  kind: string,
  archiveDir: string,
  agentRun: DemoTraceKind | null,
) {
  const challengeId = challenge.id;
  const name = `demo-${kind}-${challengeId.slice(0, 8)}-${runId}`;
  const created = await unwrap(operator.POST("/v1/agents", { body: { name } }));
  const agent = createBoutsClient({ baseUrl: api, key: created.key.key });
  await unwrap(
    agent.POST("/v1/challenges/{id}/entries", { params: { path: { id: challengeId } } }),
  );
  let trace: Uint8Array | null = null;
  if (agentRun) {
    const files = readFiles(archiveDir);
    const calls = await callModels(challengeId, created.key.key, agentRun, files);
    if (calls) {
      trace = new TextEncoder().encode(buildDemoTrace(agentRun, challenge.slug, files, calls));
      const sum = (pick: (c: GatewayCall) => number) => calls.reduce((n, c) => n + pick(c), 0);
      observed.set(
        name,
        `${calls.length} model calls through the gateway: ${sum((c) => c.tokensIn)} in + ${sum((c) => c.tokensOut)} out tokens`,
      );
    } else
      trace = readFileSync(path.join(ROOT, "packages/telemetry/fixtures", `${agentRun}.jsonl`));
  }
  const { submission: sub } = await submit(agent, challengeId, {
    archive: packDirectory(archiveDir),
    trace,
  });
  submitted.push({
    challenge: challengeId,
    kind,
    agent: name,
    agentId: created.agent.id,
    agentKey: created.key.key,
    id: sub.id,
  });
  console.log(
    `submitted ${kind} as ${name}: ${sub.id}${observed.has(name) ? ` (${observed.get(name)})` : ""}`,
  );
}

// A challenge an earlier demo closed takes no submissions: ask for each one's status now.
const open: typeof creds.challenges = [];
for (const c of creds.challenges.filter((x) => x.status === "published")) {
  const live = await anonymous.GET("/v1/challenges/{id}", { params: { path: { id: c.id } } });
  if (live.data?.status === "published") open.push(c);
}

for (const c of open) {
  const variantOf = c.slug.endsWith("-agent") ? c.slug.slice(0, -"-agent".length) : null;
  const dir = path.join(ROOT, "challenges", variantOf ?? c.slug, "submissions");
  if (!existsSync(dir)) continue;
  if (variantOf) {
    for (const t of DEMO_TRACE_KINDS) await submitAs(c, t, path.join(dir, "complete"), t);
    continue;
  }
  for (const kind of KINDS.filter((k) => readdirSync(dir).includes(k)))
    await submitAs(c, kind, path.join(dir, kind), null);
}

// Wait for every submission to leave the queue (the owner's key is not needed for the public
// breakdown, but the status needs the agent's: use the operator-visible public breakdown).
const started = Date.now();
const pending = new Set(submitted.map((s) => s.id));
const failed = new Map<string, string>();
while (pending.size > 0 && Date.now() - started < DEADLINE_MS) {
  for (const id of [...pending]) {
    const res = await readBreakdown(id);
    if (res.ok) pending.delete(id);
    else if (res.status !== 404 && res.status !== 409) {
      failed.set(id, `${res.status}`);
      pending.delete(id);
    }
  }
  if (pending.size > 0) {
    process.stdout.write(`\rwaiting for ${pending.size} submission(s)…   `);
    await new Promise((r) => setTimeout(r, 3000));
  }
}
console.log("");

const names = new Map(submitted.map((s) => [s.agentId, s.agent]));
for (const c of open) {
  const mine = submitted.filter((s) => s.challenge === c.id);
  if (mine.length === 0) continue;
  console.log(`\n═══ ${c.slug} ═══`);
  const page = await unwrap(
    anonymous.GET("/v1/challenges/{id}/leaderboard", {
      params: { path: { id: c.id }, query: { limit: 20 } },
    }),
  );
  for (const e of page.entries) {
    const time = `${Math.floor(e.timeToFinalMs / 60000)}:${String(Math.floor(e.timeToFinalMs / 1000) % 60).padStart(2, "0")}`;
    const cost = e.cost.usd !== null ? `$${e.cost.usd}` : e.cost.status;
    console.log(
      `  #${e.rank}  ${String(e.score).padStart(3)}  iterations ${e.iterations}  time ${time}  cost ${cost}  ${e.trajectoryClass ?? ""}  ${names.get(e.agentId) ?? e.agentId}`,
    );
  }
  // Score against cost: the entries no cheaper entry matches (docs/leaderboard.md, "Cost").
  const plot = await unwrap(
    anonymous.GET("/v1/challenges/{id}/leaderboard/cost", { params: { path: { id: c.id } } }),
  );
  if (plot.points.length > 0)
    console.log(
      `  Pareto frontier (prices rev ${plot.prices?.revision ?? "-"} as of ${plot.prices?.asOf ?? "-"}): ` +
        plot.points
          .filter((p) => p.onFrontier)
          .map((p) => `${names.get(p.agentId) ?? p.agentId} ${p.unrounded} at $${p.usd}`)
          .join("; ") +
        (plot.unknownCost > 0 ? `; ${plot.unknownCost} not measured or not priced` : ""),
    );
  for (const s of mine) {
    const res = await readBreakdown(s.id);
    if (!res.ok) {
      console.log(`  ${s.kind}: not scored (${failed.get(s.id) ?? res.status})`);
      continue;
    }
    const { final, breakdown: b } = res.value;
    const parts = b.components
      .map((p) => `${p.label} ${p.score.text}×${p.weight}%=${p.contribution.text}`)
      .join(", ");
    const adj = b.adjustments.map((a) => `${a.label} ${a.points.text}`).join(", ");
    console.log(
      `  ${s.kind.padEnd(9)} ${final.unrounded} → ${final.rounded} (${b.band.label}): ${parts}${adj ? `; ${adj}` : ""}`,
    );
    const seen = observed.get(s.agent);
    if (seen) console.log(`            observed: ${seen}`);
    const mix = b.components.find((p) => p.key === "adversarial")?.details?.composition;
    if (mix)
      console.log(
        `            adversarial tests: ${mix.prebuilt.tests} pre-built (${mix.prebuilt.weightShare.text} % of the weight) + ${mix.generated.tests} generated for this submission (${mix.generated.weightShare.text} %; target 40/60)`,
      );
  }
}
// One challenge with a public/private split is closed: its private board beside its public one.
const split = open.find((c) => hasSplit(c.slug) && submitted.some((s) => s.challenge === c.id));
if (split)
  await closeAndShowPrivateBoard({
    api,
    operator,
    anonymous,
    createClient: (key) => createBoutsClient({ baseUrl: api, key }),
    challengeId: split.id,
    slug: split.slug,
    submissions: submitted.filter((s) => s.challenge === split.id),
    names,
  });
// One challenge gets a second version that adds a test: rescored, diffed and promoted.
const rescored = open.find((c) => c.slug === SECOND_VERSION_CHALLENGE);
if (rescored)
  await rescoreAndPromote({
    api,
    operatorKey: creds.operator.key,
    operator,
    anonymous,
    challengeId: rescored.id,
    names,
    deadlineMs: DEADLINE_MS,
  });
if (pending.size > 0) {
  console.error(`${pending.size} submission(s) were not scored within ${DEADLINE_MS / 1000}s`);
  process.exit(1);
}
