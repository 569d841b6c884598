/**
 * The real platform Worker for the CLI's tests: the root wrangler.toml run by wrangler's test
 * harness (workerd, in-memory storage, loopback only), the D1 migrations applied, and D1
 * reachable from the test for seeding what only the scoring pipeline writes (scores, audit
 * events). The CLI then talks to it over HTTP exactly as it talks to a deployment.
 */
import path from "node:path";
import { createTestHarness } from "wrangler";
import { mintApiKey } from "@bouts/db/keys";
import { computeScore, INTERVAL_METHOD, SEED_ENGINEERING_EXAMPLE } from "@bouts/scoring";

const ROOT = path.join(import.meta.dirname, "../../..");

/** The part of a D1 binding the seeding uses. */
export interface SeedDb {
  prepare(sql: string): { bind(...values: unknown[]): { run(): Promise<unknown> } };
}

/** A running platform Worker. */
export interface LocalPlatform {
  /** The API's origin, for `BOUTS_API_URL`. */
  url: string;
  db: SeedDb;
  close(): Promise<void>;
}

/** Starts the platform Worker with its migrations applied; `vars` override wrangler.toml's. */
export async function startPlatform(vars: Record<string, string> = {}): Promise<LocalPlatform> {
  // Offline and quiet, as every local wrangler run of this repository (scripts/lib).
  process.env.WRANGLER_SEND_METRICS = "false";
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  const server = createTestHarness({
    root: ROOT,
    workers: [{ configPath: "wrangler.toml", vars }],
  });
  const { url } = await server.listen();
  const worker = server.getWorker<{ DB: SeedDb }>();
  await worker.applyD1Migrations("DB");
  const env = await worker.getEnv();
  return { url: url.origin, db: env.DB, close: () => server.close() };
}

/** Runs statements in order. */
export async function execute(db: SeedDb, statements: [string, ...unknown[]][]): Promise<void> {
  for (const [sql, ...values] of statements)
    await db
      .prepare(sql)
      .bind(...values)
      .run();
}

/** An operator with a key. */
export async function seedOperator(db: SeedDb, now: number) {
  const id = crypto.randomUUID();
  const key = await mintApiKey();
  await execute(db, [
    ["INSERT INTO operators (id, name, created_at) VALUES (?, ?, ?)", id, "ops", now],
    [
      `INSERT INTO api_keys (id, role, agent_id, operator_id, secret_hash, label, created_at, revoked_at)
       VALUES (?, 'operator', NULL, ?, ?, NULL, ?, NULL)`,
      key.id,
      id,
      key.secretHash,
      now,
    ],
  ]);
  return { id, key: key.token };
}

/** An agent of `operatorId` with a key; a baseline agent (`baseline`) gets none. */
export async function seedAgent(
  db: SeedDb,
  a: {
    operatorId: string;
    name: string;
    now: number;
    baseline?: { kind: "reference" | "stub" | "other"; of: string };
  },
) {
  const id = a.baseline ? `baseline-${a.baseline.of}-ref` : crypto.randomUUID();
  await execute(db, [
    [
      `INSERT INTO agents (id, name, operator_id, created_at, baseline_kind, baseline_of)
       VALUES (?, ?, ?, ?, ?, ?)`,
      id,
      a.name,
      a.operatorId,
      a.now,
      a.baseline?.kind ?? null,
      a.baseline?.of ?? null,
    ],
  ]);
  if (a.baseline) return { id, key: null };
  const key = await mintApiKey();
  await execute(db, [
    [
      `INSERT INTO api_keys (id, role, agent_id, operator_id, secret_hash, label, created_at, revoked_at)
       VALUES (?, 'agent', ?, NULL, ?, NULL, ?, NULL)`,
      key.id,
      id,
      key.secretHash,
      a.now,
    ],
  ]);
  return { id, key: key.token };
}

/** A published challenge (bundle and QA as publishing leaves them) owned by `operatorId`. */
export async function seedChallenge(
  db: SeedDb,
  c: { operatorId: string; slug: string; now: number },
) {
  const id = crypto.randomUUID();
  await execute(db, [
    [
      `INSERT INTO challenges (id, slug, title, description, status, profile, family, custom_weights,
         ranking_mode, max_iterations, limits, bundle_key, bundle_sha256, bundle_manifest, qa_report,
         qa_passed, created_by, created_at, updated_at, published_at, closed_at)
       VALUES (?, ?, 'CLI board', 'A board for the CLI tests.', 'published', 'engineering', 'default',
         NULL, 'latest', 5, '{"cooldownSeconds":0}', 'bundles/x', 'x', '{}', '{}', 1, ?, ?, ?, ?, NULL)`,
      id,
      c.slug,
      c.operatorId,
      c.now,
      c.now,
      c.now,
    ],
  ]);
  return id;
}

/**
 * A submission of `agentId`, scored with `score` and its 95 % interval, or failed with
 * `failure`; returns its id. The breakdown is a whole one (the seed example's: every reader
 * refuses a partial one), with the given interval.
 */
export async function seedSubmission(
  db: SeedDb,
  s: {
    challengeId: string;
    agentId: string;
    iteration: number;
    at: number;
    score?: { rounded: number; low: number; high: number };
    failure?: { code: string; reason: string };
  },
): Promise<string> {
  const id = crypto.randomUUID();
  const status = s.score ? "scored" : "failed";
  await execute(db, [
    [
      `INSERT INTO entries (agent_id, challenge_id, entered_at) VALUES (?, ?, ?)
       ON CONFLICT DO NOTHING`,
      s.agentId,
      s.challengeId,
      s.at,
    ],
    [
      `INSERT INTO submissions (id, agent_id, challenge_id, iteration, artifact_sha256, artifact_key,
         artifact_size, artifact_type, claims, trace_key, trace_sha256, status, failure_reason,
         failure_code, received_at, queued_at, running_at, scored_at, failed_at)
       VALUES (?, ?, ?, ?, ?, ?, 10, 'tar.gz', NULL, NULL, NULL, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      s.agentId,
      s.challengeId,
      s.iteration,
      "0".repeat(64),
      `artifacts/${"0".repeat(64)}`,
      status,
      s.failure?.reason ?? null,
      s.failure?.code ?? null,
      s.at,
      s.at,
      s.at,
      s.score ? s.at + 1000 : null,
      s.failure ? s.at + 1000 : null,
    ],
  ]);
  if (!s.score) return id;
  const exact = (v: number) => ({ value: v, text: String(v), fraction: `${v}/1` });
  const example = computeScore(SEED_ENGINEERING_EXAMPLE);
  if (!example.ok) throw new Error("the seed example does not score");
  const breakdown = {
    ...example.value,
    interval: {
      level: 95,
      low: exact(s.score.low),
      high: exact(s.score.high),
      method: INTERVAL_METHOD,
      prng: "xoshiro128**",
      seed: "cli-test",
      replicates: 1000,
      resampled: [],
      fixed: [],
      widenedToPoint: false,
    },
  };
  await execute(db, [
    [
      `INSERT INTO scores (submission_id, challenge_id, agent_id, iteration, profile, profile_version,
         family, final_unrounded, final_fraction, final_rounded, band, breakdown, input, human_review,
         judge_mode, report_key, submitted_at, entered_at, scored_at)
       VALUES (?, ?, ?, ?, 'engineering', 1, NULL, ?, ?, ?, ?, ?, '{}', 0, 'offline', 'reports/x', ?, ?, ?)`,
      id,
      s.challengeId,
      s.agentId,
      s.iteration,
      `${s.score.rounded}.000`,
      `${s.score.rounded}/1`,
      s.score.rounded,
      s.score.rounded >= 90 ? "elite" : s.score.rounded >= 75 ? "strong" : "competent",
      JSON.stringify(breakdown),
      s.at,
      s.at,
      s.at + 1000,
    ],
  ]);
  return id;
}

/** An audit event about a submission, as the pipeline or an operator appends it. */
export async function seedSubmissionEvent(
  db: SeedDb,
  e: {
    challengeId: string;
    submissionId: string;
    agentId: string;
    type: "scored" | "rescored" | "rejudged" | "removed";
    actor: { kind: "system" | "operator"; id: string };
    cause: string;
    before: object | null;
    after: object | null;
    at: number;
  },
): Promise<void> {
  await execute(db, [
    [
      `INSERT INTO audit_events (id, challenge_id, submission_id, agent_id, type, scope, actor_kind,
         actor_id, cause, before, after, at)
       VALUES (?, ?, ?, ?, ?, 'submission', ?, ?, ?, ?, ?, ?)`,
      crypto.randomUUID(),
      e.challengeId,
      e.submissionId,
      e.agentId,
      e.type,
      e.actor.kind,
      e.actor.id,
      e.cause,
      e.before ? JSON.stringify(e.before) : null,
      e.after ? JSON.stringify(e.after) : null,
      e.at,
    ],
  ]);
}
