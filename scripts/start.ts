/**
 * `npm start`: the whole platform on this machine, with no account and no network: setup, the D1
 * migrations, the runner and the platform Worker (both on loopback), a demo operator, a demo agent
 * and the example challenges (published when the runner's QA passes), the demo credentials in
 * .dev/credentials.json (git-ignored); it stays in the foreground until Ctrl-C, then stops every
 * child it started. Re-running reuses the local state and the saved credentials.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import {
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
  applyMigrations,
  bootstrapOperator,
  packDirectory,
  ROOT,
  startChild,
  startWorker,
  stopChild,
  waitForHealth,
} from "./lib/local-platform.ts";

// A second instance beside this one (the browser tests) sets BOUTS_PORT, RUNNER_PORT,
// BOUTS_STATE_DIR (the wrangler state) and BOUTS_CREDENTIALS; RUNNER_* variables
// (RUNNER_UID_BASE, RUNNER_WORK_DIR) reach the runner through its environment.
const PORT = Number(process.env.BOUTS_PORT ?? 8787);
const RUNNER_PORT = Number(process.env.RUNNER_PORT ?? 8080);
const PERSIST = path.resolve(ROOT, process.env.BOUTS_STATE_DIR ?? ".wrangler/state");
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

const children: ChildProcess[] = [];
let stopping = false;

function stopAll(code: number): never {
  stopping = true;
  for (const c of children.reverse()) stopChild(c);
  process.exit(code);
}

process.on("SIGINT", () => stopAll(0));
process.on("SIGTERM", () => stopAll(0));

function log(message: string) {
  console.log(`[start] ${message}`);
}

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

/** The demo operator: the saved one if its key still works, else a fresh local bootstrap. */
async function ensureOperator(saved: Credentials | null) {
  if (saved && (await api("GET", "/v1/agents", saved.operator.key)).status === 200) {
    return saved.operator;
  }
  log("bootstrapping the demo operator in the local D1 (wrangler d1 execute --local)");
  return bootstrapOperator(PERSIST, "demo operator");
}

/** The demo agent: the saved one if its key still works, else registered through the API. */
async function ensureAgent(saved: Credentials | null, operatorKey: string) {
  if (saved && (await api("GET", "/v1/challenges", saved.agent.key)).status === 200) {
    return saved.agent;
  }
  const res = await api<{ agent: { id: string }; key: { key: string } }>(
    "POST",
    "/v1/agents",
    operatorKey,
    JSON.stringify({ name: "demo agent" }),
    "application/json",
  );
  if (res.status !== 201)
    throw new Error(`registering the demo agent: ${JSON.stringify(res.body)}`);
  return { id: res.body.agent.id, key: res.body.key.key };
}

type ChallengeView = { id: string; slug: string; status: string; bundle?: { qa: string } | null };

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
      JSON.stringify({ ...manifest, id: seed.slug, title: seed.title }, null, 2),
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
  const seeded: ChallengeView[] = [];
  for (const seed of seeds.filter((s) => !SEED_ONLY || SEED_ONLY.has(s.slug))) {
    const name = seed.slug;
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
        log(`challenge ${name}: not created: ${JSON.stringify(created.body)}`);
        continue;
      }
      ch = created.body;
    }
    if (ch.status === "draft") {
      const up = await api<ChallengeView>(
        "PUT",
        `/v1/challenges/${ch.id}/bundle`,
        operatorKey,
        packSeed(seed),
        "application/gzip",
      );
      if (up.status !== 200) {
        log(`challenge ${name}: bundle refused: ${JSON.stringify(up.body)}`);
        seeded.push(ch);
        continue;
      }
      if (runnerUp) {
        log(`challenge ${name}: running the runner's challenge QA (this can take a while)`);
        const pub = await api<ChallengeView & { detail?: string }>(
          "POST",
          `/v1/challenges/${ch.id}/publish`,
          operatorKey,
        );
        if (pub.status === 200) ch = pub.body;
        else log(`challenge ${name}: stays a draft: ${pub.body.detail ?? pub.status}`);
      } else {
        log(`challenge ${name}: stays a draft until the runner is available (QA gates publishing)`);
      }
    }
    seeded.push(ch);
  }
  return seeded;
}

async function main() {
  log("setup: bash scripts/setup.sh");
  const setup = spawnSync("bash", ["scripts/setup.sh"], { cwd: ROOT, stdio: "inherit" });
  if (setup.status !== 0) log("setup reported a problem; continuing (see above)");

  log("applying D1 migrations (local)");
  applyMigrations(PERSIST);

  let runnerUp = false;
  if (existsSync(RUNNER_ENTRY)) {
    log(`starting the runner on ${RUNNER}`);
    const runner = startChild("runner", "npm", ["run", "runner"], {
      ...process.env,
      RUNNER_HOST: "127.0.0.1",
      RUNNER_PORT: String(RUNNER_PORT),
    });
    children.push(runner);
    runner.on("exit", (code) => !stopping && log(`the runner exited (${code})`));
    try {
      await waitForHealth(`${RUNNER}/healthz`, 60_000, runner);
      runnerUp = true;
    } catch (err) {
      log(`the runner is not healthy: ${String(err)}; challenges will stay drafts`);
    }
  } else {
    log("containers/runner has no HTTP server yet; challenges will stay drafts");
  }

  log(`starting the platform Worker on ${API}`);
  const worker = startWorker({
    port: PORT,
    persistTo: PERSIST,
    vars: {
      RUNNER_URL: runnerUp ? RUNNER : "",
      // Local development: webhook receivers on loopback (docs/webhooks.md), links to this API.
      WEBHOOKS_ALLOW_LOOPBACK: "true",
      WEBHOOKS_LINK_ORIGIN: API,
    },
  });
  children.push(worker);
  worker.on("exit", (code) => {
    if (stopping) return;
    log(`the Worker exited (${code}); stopping`);
    stopAll(1);
  });
  await waitForHealth(`${API}/healthz`, 120_000, worker);

  const saved = readSavedCredentials();
  const operator = await ensureOperator(saved);
  const agent = await ensureAgent(saved, operator.key);
  const challenges = await seedChallenges(operator.key, runnerUp);
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
    runner            ${runnerUp ? RUNNER : "not running"}
    demo credentials  ${path.relative(ROOT, CREDENTIALS)}  (operator and agent keys)
    challenges        ${credentials.challenges.map((c) => `${c.slug} (${c.status})`).join(", ") || "none"}

  Try:  curl -H "Authorization: Bearer $(node -p "require('./.dev/credentials.json').agent.key")" ${API}/v1/challenges
`);
}

main().catch((err: unknown) => {
  console.error("[start] failed:", err);
  stopAll(1);
});
