/**
 * Test helpers: result builders, a fresh board per test (a random challenge id names a new
 * object), and D1 seeding (operator, agents with keys, a published challenge, submissions).
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import {
  agents,
  apiKeys,
  challenges,
  createDb,
  entries,
  insertOperator,
  mintApiKey,
  submissions,
} from "@bouts/db";
import { SEED_ENGINEERING_EXAMPLE, computeScore } from "@bouts/scoring";
import type { RecordResultInput } from "../src/index.ts";

/** 2026-11-30T08:00:00Z. */
export const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const MIN = 60_000;
const SEC = 1000;

/** A fresh board stub and its challenge id. */
export function freshBoard() {
  const challengeId = crypto.randomUUID();
  return { challengeId, board: env.LEADERBOARD.getByName(challengeId) };
}

/** A result for `agentId`; by default iteration 1, entered at T0, submitted a minute later. */
export function result(
  challengeId: string,
  agentId: string,
  score: number,
  over: Partial<RecordResultInput> = {},
): RecordResultInput {
  const iteration = over.iteration ?? 1;
  return {
    challengeId,
    submissionId: `${agentId}-s${iteration}`,
    agentId,
    score,
    unrounded: `${score}`,
    iteration,
    enteredAt: T0,
    submittedAt: T0 + iteration * MIN,
    scoredAt: T0 + iteration * MIN + SEC,
    rankingMode: "latest",
    openedAt: T0,
    ...over,
  };
}

/** mm:ss → ms. */
export function mmss(text: string): number {
  const [m, s] = text.split(":").map(Number);
  return (m! * 60 + s!) * SEC;
}

/** Reads a problem+json answer and checks its shape. */
export async function expectProblem(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  const body = await res.json<{ status: number; detail: string; type: string }>();
  expect(body.status).toBe(status);
  expect(body.detail.length).toBeGreaterThan(0);
  return body;
}

// ─── D1 seeding ───

/** An operator, a published challenge and `n` agents with keys; returns ids and tokens. */
export async function seedChallenge(
  options: { agents?: number; status?: "draft" | "published" | "closed"; slug?: string } = {},
) {
  const db = createDb(env.DB);
  const operatorId = crypto.randomUUID();
  await insertOperator(db, { id: operatorId, name: "ops", createdAt: T0 });
  const opKey = await mintApiKey();
  await db.insert(apiKeys).values({
    id: opKey.id,
    role: "operator",
    agentId: null,
    operatorId,
    secretHash: opKey.secretHash,
    label: null,
    createdAt: T0,
    revokedAt: null,
  });
  const challengeId = crypto.randomUUID();
  const status = options.status ?? "published";
  await db.insert(challenges).values({
    id: challengeId,
    slug: options.slug ?? `c-${challengeId.slice(0, 8)}`,
    title: "Deep merge",
    description: "Merge objects deeply.",
    status,
    profile: "engineering",
    family: "default",
    customWeights: null,
    rankingMode: "latest",
    maxIterations: 5,
    limits: JSON.stringify({ cooldownSeconds: 0 }),
    bundleKey: "bundles/abc",
    bundleSha256: "abc",
    bundleManifest: JSON.stringify({ secretTests: ["hidden-test-name"] }),
    qaReport: JSON.stringify({ hidden: "qa" }),
    qaPassed: true,
    createdBy: operatorId,
    createdAt: T0,
    updatedAt: T0,
    publishedAt: status === "draft" ? null : T0,
    closedAt: status === "closed" ? T0 : null,
  });
  const seeded: { id: string; token: string }[] = [];
  for (let i = 0; i < (options.agents ?? 0); i++) {
    const id = crypto.randomUUID();
    await db.insert(agents).values({ id, name: `agent-${i}`, operatorId, createdAt: T0 });
    const key = await mintApiKey();
    await db.insert(apiKeys).values({
      id: key.id,
      role: "agent",
      agentId: id,
      operatorId: null,
      secretHash: key.secretHash,
      label: null,
      createdAt: T0,
      revokedAt: null,
    });
    await db.insert(entries).values({ agentId: id, challengeId, enteredAt: T0 });
    seeded.push({ id, token: key.token });
  }
  return { operatorId, operatorToken: opKey.token, challengeId, agents: seeded };
}

/** A scored submission row (the ingest side of a score). */
export async function seedSubmission(
  challengeId: string,
  agentId: string,
  iteration: number,
): Promise<string> {
  const id = crypto.randomUUID();
  await createDb(env.DB)
    .insert(submissions)
    .values({
      id,
      agentId,
      challengeId,
      iteration,
      artifactSha256: "0".repeat(64),
      artifactKey: `artifacts/${"0".repeat(64)}`,
      artifactSize: 10,
      artifactType: "tar.gz",
      claims: null,
      traceKey: null,
      traceSha256: null,
      status: "scored",
      failureReason: null,
      receivedAt: T0 + iteration * MIN,
      queuedAt: null,
      runningAt: null,
      scoredAt: T0 + iteration * MIN + SEC,
      failedAt: null,
    });
  return id;
}

/** A score row as the score worker writes it: the seed example's breakdown, optionally re-rounded. */
export async function seedScore(
  submission: { id: string; challengeId: string; agentId: string; iteration: number },
  rounded?: number,
) {
  const scored = computeScore(SEED_ENGINEERING_EXAMPLE);
  if (!scored.ok) throw new Error("seed example does not score");
  const b = scored.value;
  await env.DB.prepare(
    `INSERT INTO scores (submission_id, challenge_id, agent_id, iteration, profile, profile_version,
       family, final_unrounded, final_fraction, final_rounded, band, breakdown, input, human_review,
       judge_mode, report_key, submitted_at, entered_at, scored_at)
     VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, '{}', 0, 'offline', 'reports/x', ?, ?, ?)`,
  )
    .bind(
      submission.id,
      submission.challengeId,
      submission.agentId,
      submission.iteration,
      b.profile,
      b.profileVersion,
      b.final.unrounded.text,
      b.final.unrounded.fraction,
      rounded ?? b.final.rounded,
      b.band.key,
      JSON.stringify(b),
      T0 + submission.iteration * 60_000,
      T0,
      T0 + submission.iteration * 60_000 + 1000,
    )
    .run();
  return b;
}

/** A scored submission and its score row. */
export async function scoredSubmission(
  challengeId: string,
  agentId: string,
  iteration: number,
  rounded?: number,
) {
  const id = await seedSubmission(challengeId, agentId, iteration);
  await seedScore({ id, challengeId, agentId, iteration }, rounded);
  return id;
}
