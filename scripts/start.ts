/**
 * `npm start`: the whole platform on this machine, with no account and no network: setup, the D1
 * migrations, the runner and the platform Worker (both on loopback, started side by side), a local
 * fake model behind the metering gateway (GATEWAY_UPSTREAM_URL overrides it), a demo
 * operator, a demo agent and the example challenges (QA'd together, published when QA passes;
 * QA reports reused from .wrangler/qa-cache by bundle), the demo credentials in
 * .dev/credentials.json (git-ignored). A fresh RUNNER_SHARED_SECRET per start goes to the runner
 * (environment) and the Worker (a private --env-file), so every local run is signed and checked.
 * The runner is supervised: restarted with backoff and a loud line whenever it exits, with the
 * same secret. A local clock fires the Worker's scheduled handler (deadlines, the reconciler) on
 * wrangler.toml's crons, or every BOUTS_CRON_INTERVAL_SECONDS. Every line carries the time
 * since the command began; it stays in the foreground until Ctrl-C, then stops every child it
 * started.
 */
import { startCachedNpmRegistry, startFakeModel } from "@bouts/fixtures";
import { spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  applyMigrationsAsync,
  bootstrapOperator,
  packDirectory,
  ROOT,
  startChild,
  startWorker,
  stopChild,
  waitForHealth,
} from "./lib/local-platform.ts";
import { describeBundleDrift, type VersionList } from "./lib/bundle-drift.ts";
import { readCrons, startLocalCron } from "./lib/local-cron.ts";
import { supervise, type Supervisor } from "./lib/supervise.ts";

// A second instance beside this one (the browser tests) sets BOUTS_PORT, RUNNER_PORT,
// BOUTS_STATE_DIR (the wrangler state), BOUTS_QA_CACHE_DIR and BOUTS_CREDENTIALS; RUNNER_*
// variables (RUNNER_UID_BASE, RUNNER_WORK_DIR) reach the runner through its environment.
const PORT = Number(process.env.BOUTS_PORT ?? 8787);
const RUNNER_PORT = Number(process.env.RUNNER_PORT ?? 8080);
const PERSIST = path.resolve(ROOT, process.env.BOUTS_STATE_DIR ?? ".wrangler/state");
/** The runner's QA reports by bundle (docs/design.md §18): beside the state, so a fresh state reuses them. */
const QA_CACHE = path.resolve(ROOT, process.env.BOUTS_QA_CACHE_DIR ?? ".wrangler/qa-cache");
const CREDENTIALS = path.resolve(ROOT, process.env.BOUTS_CREDENTIALS ?? ".dev/credentials.json");
const API = `http://127.0.0.1:${PORT}`;
const RUNNER = `http://127.0.0.1:${RUNNER_PORT}`;
const RUNNER_ENTRY = path.join(ROOT, "containers/runner/src/server.ts");
/** Slugs to seed (BOUTS_SEED, comma-separated); null seeds every example challenge. */
const SEED_ONLY = process.env.BOUTS_SEED
  ? new Set(process.env.BOUTS_SEED.split(",").map((s) => s.trim()))
  : null;
/** Folders of an example challenge that are not part of its bundle. */
const NOT_IN_BUNDLE = ["submissions", "README.md"];

type Credentials = {
  api: string;
  docs: string;
  runner: string | null;
  operator: { id: string; key: string };
  agent: { id: string; key: string };
  challenges: { id: string; slug: string; status: string }[];
};

/** This start's runner secret (docs/runner.md, "Authentication"): new every time, never stored. */
const RUNNER_SECRET = randomBytes(32).toString("hex");
/** The Worker's secrets file: private to this start, removed when it stops. */
const SECRETS_DIR = mkdtempSync(path.join(tmpdir(), "bouts-start-secrets-"));
const WORKER_SECRETS = path.join(SECRETS_DIR, "runner.env");
writeFileSync(WORKER_SECRETS, `RUNNER_SHARED_SECRET=${RUNNER_SECRET}\n`, { mode: 0o600 });
process.on("exit", () => rmSync(SECRETS_DIR, { recursive: true, force: true }));

const children: ChildProcess[] = [];
let stopping = false;
/** The runner, restarted whenever it exits until `npm start` stops. */
let runnerSupervisor: Supervisor | null = null;
/** Stops the local clock (the scheduled handler's driver). */
let stopClock: (() => void) | null = null;
/**
 * The scheduled handler's local interval in seconds (BOUTS_CRON_INTERVAL_SECONDS); unset: the
 * crons of wrangler.toml's [triggers], as Cloudflare would fire them.
 */
const CRON_INTERVAL_SECONDS = Number(process.env.BOUTS_CRON_INTERVAL_SECONDS) || undefined;

function stopAll(code: number): never {
  stopping = true;
  stopClock?.();
  runnerSupervisor?.stop();
  for (const c of children.reverse()) stopChild(c);
  rmSync(SECRETS_DIR, { recursive: true, force: true });
  process.exit(code);
}

process.on("SIGINT", () => stopAll(0));
process.on("SIGTERM", () => stopAll(0));

/** Seconds since the command began (the process's start), as `[  12.3 s]`. */
function stamp(): string {
  return `[${(performance.now() / 1000).toFixed(1).padStart(6)} s]`;
}

function log(message: string) {
  console.log(`${stamp()} ${message}`);
}

/** sha256 of bytes, hex: what ingest records for an uploaded bundle. */
function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Bundles whose QA the runner answered from its cache (its log line, read from its output). */
const qaCacheHits = new Set<string>();
const QA_CACHE_HIT = /challenge QA of bundle ([0-9a-f]{64}): cached report reused/;

async function api<T>(
  method: string,
  route: string,
  key: string,
  body?: string | Uint8Array,
  type?: string,
) {
  const res = await fetch(`${API}${route}`, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(type ? { "Content-Type": type } : {}),
    },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

function readSavedCredentials(): Credentials | null {
  if (!existsSync(CREDENTIALS)) return null;
  try {
    return JSON.parse(readFileSync(CREDENTIALS, "utf8")) as Credentials;
  } catch {
    return null;
  }
}

const DEMO_AGENT = "demo agent";

/**
 * The demo operator: the saved one if its key still works, else a new key for the local demo
 * operator (created on the first start), so an interrupted start finds its drafts again.
 */
async function ensureOperator(saved: Credentials | null) {
  if (saved && (await api("GET", "/v1/agents", saved.operator.key)).status === 200) {
    return saved.operator;
  }
  return bootstrapLocalOperator();
}

function bootstrapLocalOperator() {
  log("bootstrapping the demo operator in the local D1 (wrangler d1 execute --local)");
  return bootstrapOperator(PERSIST, "demo operator");
}

/**
 * The demo agent: the saved one if its key still works; else the operator's agent of that name
 * with a new key (an interrupted start lost the saved one); else a newly registered agent.
 */
async function ensureAgent(saved: Credentials | null, operatorKey: string) {
  if (saved && (await api("GET", "/v1/challenges", saved.agent.key)).status === 200) {
    return saved.agent;
  }
  type AgentKey = { agent: { id: string }; key: { key: string } };
  const agents = await api<{ agents: { id: string; name: string }[] }>(
    "GET",
    "/v1/agents",
    operatorKey,
  );
  const known =
    agents.status === 200 ? agents.body.agents.find((a) => a.name === DEMO_AGENT) : null;
  const res = known
    ? await api<AgentKey>(
        "POST",
        `/v1/agents/${known.id}/keys`,
        operatorKey,
        JSON.stringify({ label: "npm start" }),
        "application/json",
      )
    : await api<AgentKey>(
        "POST",
        "/v1/agents",
        operatorKey,
        JSON.stringify({ name: DEMO_AGENT }),
        "application/json",
      );
  if (res.status !== 201)
    throw new Error(`registering the demo agent: ${JSON.stringify(res.body)}`);
  return { id: res.body.agent.id, key: res.body.key.key };
}

type ChallengeView = {
  id: string;
  slug: string;
  status: string;
  bundle?: { qa: string; sha256: string } | null;
};

/**
 * The demo price table: illustrative USD per million tokens for the models the example traces
 * name (packages/telemetry/fixtures), not any provider's prices. model-c is left out on purpose,
 * so the demo shows a run that is "not priced" rather than a partial or zero cost.
 */
const DEMO_PRICES = {
  asOf: "2026-12-01",
  models: {
    "model-a": { inputUsdPerMTok: "3", outputUsdPerMTok: "15" },
    "model-b": { inputUsdPerMTok: "0.15", outputUsdPerMTok: "0.6" },
  },
};

/** Sets the demo price table unless one is already in force (an operator's own stays). */
async function ensurePriceTable(operatorKey: string) {
  const current = await api("GET", "/v1/pricing", operatorKey);
  if (current.status === 200) return;
  const set = await api(
    "PUT",
    "/v1/pricing",
    operatorKey,
    JSON.stringify(DEMO_PRICES),
    "application/json",
  );
  log(
    set.status === 201
      ? `set the demo price table (as of ${DEMO_PRICES.asOf})`
      : `could not set the demo price table: ${set.status} ${JSON.stringify(set.body)}`,
  );
}

/** One challenge to seed: a folder of challenges/, under its manifest id or a variant of it. */
type Seed = {
  name: string;
  slug: string;
  title: string;
  config: Record<string, unknown>;
};

/** The agent-run variant of an example: same bundle, its own slug, the agent profile. */
const AGENT_VARIANT = {
  of: "notes-api",
  suffix: "-agent",
  config: { profile: "agent", family: "blacksite-debug", limits: { tokenBudget: 60_000 } },
};

/** Packs a challenge folder for upload; a variant gets its slug as the manifest's id. */
function packSeed(seed: Seed): Uint8Array {
  const source = path.join(ROOT, "challenges", seed.name);
  if (seed.slug === seed.name) return packDirectory(source, NOT_IN_BUNDLE);
  const copy = mkdtempSync(path.join(tmpdir(), "bouts-seed-"));
  try {
    cpSync(source, copy, {
      recursive: true,
      filter: (p) => !p.startsWith(path.join(source, "submissions")),
    });
    const manifestPath = path.join(copy, "challenge.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, unknown>;
    writeFileSync(
      manifestPath,
      // No baselines on the agent-run variant: a baseline folder carries no agent trace, which
      // the agent profile scores (it would fail with trace-refused).
      JSON.stringify({ ...manifest, id: seed.slug, title: seed.title, baselines: [] }, null, 2),
    );
    return packDirectory(copy, NOT_IN_BUNDLE);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** Creates, uploads and publishes every example challenge in challenges/ (and the agent variant). */
async function seedChallenges(operatorKey: string, runnerUp: boolean) {
  const dir = path.join(ROOT, "challenges");
  if (!existsSync(dir)) return [];
  const seeds: Seed[] = [];
  for (const name of readdirSync(dir).sort()) {
    const manifestPath = path.join(dir, name, "challenge.json");
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
      id: string;
      title: string;
    };
    seeds.push({
      name,
      slug: manifest.id,
      title: manifest.title,
      config: { profile: "engineering" },
    });
    if (name === AGENT_VARIANT.of)
      seeds.push({
        name,
        slug: `${manifest.id}${AGENT_VARIANT.suffix}`,
        title: `${manifest.title} (agent-run)`,
        config: AGENT_VARIANT.config,
      });
  }
  const picked = seeds.filter((s) => !SEED_ONLY || SEED_ONLY.has(s.slug));
  // Create and upload one by one (fast), then QA every draft at once: the runner queues the QA
  // runs and runs as many as its capacity allows (docs/runner.md, "POST /v1/challenges/qa").
  const prepared = [];
  for (const seed of picked) {
    const p = await prepareSeed(seed, operatorKey, runnerUp);
    if (p) prepared.push(p);
  }
  return Promise.all(
    prepared.map(async (p) => (p.publish ? publishSeed(p.ch, p.bundleSha, operatorKey) : p.ch)),
  );
}

/** Creates the seed's challenge if needed and uploads its bundle while it is a draft. */
async function prepareSeed(seed: Seed, operatorKey: string, runnerUp: boolean) {
  const name = seed.slug;
  const bundle = packSeed(seed);
  const bundleSha = sha256(bundle);
  let ch = (await api<ChallengeView>("GET", `/v1/challenges/${seed.slug}`, operatorKey)).body;
  if (!ch?.id) {
    const created = await api<ChallengeView>(
      "POST",
      "/v1/challenges",
      operatorKey,
      JSON.stringify({
        slug: seed.slug,
        title: seed.title,
        description: `Example challenge from challenges/${seed.name}.`,
        maxIterations: 10,
        ...seed.config,
      }),
      "application/json",
    );
    if (created.status !== 201) {
      log(`${name}: not created: ${JSON.stringify(created.body)}`);
      return null;
    }
    ch = created.body;
  }
  if (ch.status !== "draft") {
    // A published challenge keeps its bundle (a new one is a new version, docs/design.md §30),
    // so an edited folder is only noticed here.
    if (ch.bundle?.sha256 === bundleSha)
      log(`${name}: ${ch.status} (unchanged since an earlier start)`);
    else {
      const list = await api<VersionList>("GET", `/v1/challenges/${ch.id}/versions`, operatorKey);
      log(
        `${name}: ${describeBundleDrift(ch.status, seed.name, bundleSha, list.status === 200 ? list.body : null)}`,
      );
    }
    return { ch, bundleSha, publish: false };
  }
  const up = await api<ChallengeView>(
    "PUT",
    `/v1/challenges/${ch.id}/bundle`,
    operatorKey,
    bundle,
    "application/gzip",
  );
  if (up.status !== 200) {
    log(`${name}: bundle refused: ${JSON.stringify(up.body)}`);
    return { ch, bundleSha, publish: false };
  }
  if (!runnerUp) {
    log(`${name}: stays a draft until the runner is available (QA gates publishing)`);
    return { ch, bundleSha, publish: false };
  }
  return { ch, bundleSha, publish: true };
}

/** Publishes a draft: ingest has the runner QA its bundle (or reuse the cached report). */
async function publishSeed(ch: ChallengeView, bundleSha: string, operatorKey: string) {
  log(`${ch.slug}: QA started (bundle ${bundleSha.slice(0, 12)})`);
  const t0 = performance.now();
  const pub = await api<ChallengeView & { detail?: string }>(
    "POST",
    `/v1/challenges/${ch.id}/publish`,
    operatorKey,
  );
  const took = `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  if (pub.status !== 200) {
    log(`${ch.slug}: stays a draft after ${took}: ${pub.body.detail ?? pub.status}`);
    return ch;
  }
  const how = qaCacheHits.has(bundleSha) ? "cached" : `ran in ${took}`;
  log(`${ch.slug}: QA passed (${how}), published`);
  return pub.body;
}

async function main() {
  log("setup: bash scripts/setup.sh");
  const setup = spawnSync("bash", ["scripts/setup.sh"], { cwd: ROOT, stdio: "inherit" });
  if (setup.status !== 0) log("setup reported a problem; continuing (see above)");

  // The runner needs nothing of the Worker's: it boots (self-test included) while the
  // migrations run and the Worker starts.
  let runnerHealthy: Promise<boolean> = Promise.resolve(false);
  if (existsSync(RUNNER_ENTRY)) {
    // The example challenges' npm packages, from the tarballs setup cached (checked against
    // their locks): the runner installs them with no network (docs/dependencies.md).
    const registry = process.env.RUNNER_NPM_REGISTRY ?? (await startCachedNpmRegistry(ROOT)).url;
    log(`npm packages of the example challenges from ${registry}`);
    log(`starting the runner on ${RUNNER}`);
    // Supervised: a runner that exits is started again (same secret, same port) after a
    // backoff, with a loud line each time; a submission it was running is retried within
    // seconds of the restart (docs/score.md, "Failure handling").
    runnerSupervisor = supervise({
      label: "the runner",
      log,
      start: () =>
        startChild(
          "runner",
          "npm",
          ["run", "runner"],
          {
            ...process.env,
            RUNNER_HOST: "127.0.0.1",
            RUNNER_PORT: String(RUNNER_PORT),
            RUNNER_QA_CACHE_DIR: QA_CACHE,
            RUNNER_SHARED_SECRET: RUNNER_SECRET,
            RUNNER_NPM_REGISTRY: registry,
          },
          false,
          (line) => {
            const hit = QA_CACHE_HIT.exec(line);
            if (hit) qaCacheHits.add(hit[1]!);
          },
        ),
      onStart: (child, restart) => {
        if (restart === 0) return;
        waitForHealth(`${RUNNER}/healthz`, 120_000, child).then(
          () => log(`the runner is up again (restart ${restart})`),
          (err: unknown) => log(`!!! the restarted runner is not healthy: ${String(err)}`),
        );
      },
    });
    const runner = runnerSupervisor.current();
    runnerHealthy = waitForHealth(`${RUNNER}/healthz`, 60_000, runner).then(
      () => {
        log("the runner is up");
        return true;
      },
      (err: unknown) => {
        log(`the runner is not healthy: ${String(err)}; challenges will stay drafts`);
        return false;
      },
    );
  } else {
    log("containers/runner has no HTTP server yet; challenges will stay drafts");
  }

  // The metering gateway's upstream (docs/gateway.md): the local fake model, unless
  // GATEWAY_UPSTREAM_URL names another (its key, if any, in GATEWAY_UPSTREAM_KEY).
  const upstream = process.env.GATEWAY_UPSTREAM_URL || (await startFakeModel({ unref: true })).url;
  if (process.env.GATEWAY_UPSTREAM_KEY)
    appendFileSync(WORKER_SECRETS, `GATEWAY_UPSTREAM_KEY=${process.env.GATEWAY_UPSTREAM_KEY}\n`);
  log(
    `model calls through the gateway go to ${upstream}${process.env.GATEWAY_UPSTREAM_URL ? "" : " (the local fake model)"}`,
  );

  // wrangler dev touches D1 only when a request needs it, and none is sent before the
  // migrations are applied: both start at once.
  log("applying D1 migrations (local)");
  const migrated = applyMigrationsAsync(PERSIST);
  log(`starting the platform Worker on ${API}`);
  const worker = startWorker({
    port: PORT,
    persistTo: PERSIST,
    envFile: WORKER_SECRETS,
    vars: {
      // Set before the runner is known to be healthy; if it never is, nothing is published.
      RUNNER_URL: existsSync(RUNNER_ENTRY) ? RUNNER : "",
      // Local development: webhook receivers on loopback (docs/webhooks.md), links to this API.
      WEBHOOKS_ALLOW_LOOPBACK: "true",
      WEBHOOKS_LINK_ORIGIN: API,
      GATEWAY_UPSTREAM_URL: upstream,
    },
  });
  children.push(worker);
  worker.on("exit", (code) => {
    if (stopping) return;
    log(`the Worker exited (${code}); stopping`);
    stopAll(1);
  });
  await migrated;
  log("D1 migrations applied");
  // Without saved credentials the operator is bootstrapped while the Worker comes up.
  const saved = readSavedCredentials();
  const bootstrapped = saved ? null : bootstrapLocalOperator();
  bootstrapped?.catch(() => {});
  await waitForHealth(`${API}/healthz`, 120_000, worker);
  log("the Worker is up");
  // wrangler dev runs no cron: this clock fires the scheduled handler (deadlines, the scoring
  // reconciler, the webhook sweep) as Cloudflare would.
  const crons = readCrons(path.join(ROOT, "wrangler.toml"));
  stopClock = startLocalCron({ api: API, crons, intervalSeconds: CRON_INTERVAL_SECONDS, log });
  log(
    CRON_INTERVAL_SECONDS
      ? `the scheduled handler runs every ${CRON_INTERVAL_SECONDS} s (BOUTS_CRON_INTERVAL_SECONDS)`
      : `the scheduled handler runs on ${crons.join(", ")} (UTC; BOUTS_CRON_INTERVAL_SECONDS=<s> for a shorter interval)`,
  );
  const runnerUp = await runnerHealthy;

  const operator = bootstrapped ? await bootstrapped : await ensureOperator(saved);
  const agent = await ensureAgent(saved, operator.key);
  const challenges = await seedChallenges(operator.key, runnerUp);
  await ensurePriceTable(operator.key);
  const credentials: Credentials = {
    api: API,
    docs: `${API}/docs`,
    runner: runnerUp ? RUNNER : null,
    operator,
    agent,
    challenges: challenges.map((c) => ({ id: c.id, slug: c.slug, status: c.status })),
  };
  mkdirSync(path.dirname(CREDENTIALS), { recursive: true });
  writeFileSync(CREDENTIALS, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });

  console.log(`
  Bouts is running locally (loopback only; Ctrl-C stops everything).

    public pages      ${API}/
    API               ${API}/v1
    interactive docs  ${API}/docs
    OpenAPI 3.1       ${API}/openapi.json
    model gateway     ${API}/v1/challenges/<id>/gateway/v1  (OpenAI base URL; key: an agent key)
    runner            ${runnerUp ? RUNNER : "not running"}
    demo credentials  ${path.relative(ROOT, CREDENTIALS)}  (operator and agent keys)
    challenges        ${credentials.challenges.map((c) => `${c.slug} (${c.status})`).join(", ") || "none"}

  Try:  curl -H "Authorization: Bearer $(node -p "require('./${path.relative(ROOT, CREDENTIALS)}').agent.key")" ${API}/v1/challenges
`);
  const published = credentials.challenges.filter((c) => c.status === "published").length;
  log(`ready: ${published} of ${credentials.challenges.length} challenges published`);
}

main().catch((err: unknown) => {
  console.error("[start] failed:", err);
  stopAll(1);
});
