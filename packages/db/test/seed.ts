/**
 * Builders and seeding helpers for the db tests: every row is written through the package's
 * own insert functions (operators, agents with keys, challenges, entries, submissions, scores),
 * so a test exercises the same statements production runs. Ids are unique per call, because
 * the tests of one file share one database (storage is isolated per file, not per test).
 */
import { env } from "cloudflare:workers";
import {
  claimScoringLease,
  createDb,
  enterChallenge,
  insertAgentWithKey,
  insertChallenge,
  insertOperator,
  insertSubmission,
  saveScore,
  type ChallengeRow,
  type Db,
  type NewSubmission,
  type ScoreWrite,
} from "../src/index.ts";

/** The database of the test file. */
export function testDb(): Db {
  return createDb(env.DB);
}

let counter = 0;
/** A fresh id with a readable prefix. */
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** A fixed instant the tests count from (ms). */
export const T0 = 1_800_000_000_000;

/** Guards that admit anything: the tests of other limits set their own. */
export const OPEN_GUARD = { maxIterations: 1000, maxInFlight: 1000, cooldownSince: null };

/** Inserts an operator; answers its id. */
export async function seedOperator(db: Db): Promise<string> {
  const id = uid("op");
  await insertOperator(db, { id, name: `Operator ${id}`, createdAt: T0 });
  return id;
}

/** Inserts an agent of `operatorId` with one key; answers the agent's and the key's ids. */
export async function seedAgent(
  db: Db,
  operatorId: string,
  createdAt = T0,
): Promise<{ agentId: string; keyId: string }> {
  const agentId = uid("agent");
  const keyId = uid("key");
  await insertAgentWithKey(
    db,
    {
      id: agentId,
      name: `Agent ${agentId}`,
      operatorId,
      createdAt,
      baselineKind: null,
      baselineOf: null,
    },
    {
      id: keyId,
      role: "agent",
      agentId,
      operatorId: null,
      secretHash: "a".repeat(64),
      label: null,
      createdAt,
      revokedAt: null,
    },
  );
  return { agentId, keyId };
}

/** A challenge row (a draft unless `over` says otherwise). */
export function challengeRow(operatorId: string, over: Partial<ChallengeRow> = {}): ChallengeRow {
  const id = over.id ?? uid("ch");
  return {
    id,
    slug: `slug-${id}`,
    title: `Challenge ${id}`,
    description: "",
    status: "draft",
    profile: "default",
    family: "default",
    customWeights: null,
    rankingMode: "latest",
    maxIterations: 10,
    limits: "{}",
    bundleKey: `bundles/${id}.tar.gz`,
    bundleSha256: "b".repeat(64),
    bundleManifest: null,
    qaReport: null,
    qaPassed: true,
    createdBy: operatorId,
    createdAt: T0,
    updatedAt: T0,
    publishedAt: null,
    closedAt: null,
    closesAt: null,
    version: 1,
    ...over,
  };
}

/** Inserts a published challenge; answers its id. */
export async function seedChallenge(
  db: Db,
  operatorId: string,
  over: Partial<ChallengeRow> = {},
): Promise<string> {
  const row = challengeRow(operatorId, { status: "published", publishedAt: T0, ...over });
  await insertChallenge(db, row);
  return row.id;
}

/** An operator, an agent entered into a published challenge: the usual starting point. */
export async function seedEntrant(
  db: Db,
  over: Partial<ChallengeRow> = {},
): Promise<{ operatorId: string; agentId: string; keyId: string; challengeId: string }> {
  const operatorId = await seedOperator(db);
  const { agentId, keyId } = await seedAgent(db, operatorId);
  const challengeId = await seedChallenge(db, operatorId, over);
  await enterChallenge(db, { agentId, challengeId, enteredAt: T0 });
  return { operatorId, agentId, keyId, challengeId };
}

/** A new submission row for `insertSubmission`. */
export function submissionRow(
  agentId: string,
  challengeId: string,
  over: Partial<NewSubmission> = {},
): NewSubmission {
  const id = over.id ?? uid("sub");
  return {
    id,
    agentId,
    challengeId,
    artifactSha256: "c".repeat(64),
    artifactKey: `artifacts/${id}.tar.gz`,
    artifactSize: 100,
    artifactType: "tar.gz",
    claims: null,
    traceKey: null,
    traceSha256: null,
    receivedAt: T0,
    ...over,
  };
}

/** Inserts a submission with no limit in the way; answers its id and iteration. */
export async function seedSubmission(
  db: Db,
  agentId: string,
  challengeId: string,
  over: Partial<NewSubmission> = {},
): Promise<{ id: string; iteration: number }> {
  const row = submissionRow(agentId, challengeId, over);
  const res = await insertSubmission(db, row, OPEN_GUARD, null);
  if (res.kind !== "inserted") throw new Error(`seed submission refused: ${res.kind}`);
  return { id: row.id, iteration: res.iteration };
}

/** A score write of a submission, with one part of each kind. */
export function scoreWrite(
  s: { submissionId: string; challengeId: string; agentId: string; iteration: number },
  over: {
    finalRounded?: number;
    challengeVersion?: number;
    scoredAt?: number;
    filesSha256?: string;
  } = {},
): ScoreWrite {
  const rounded = over.finalRounded ?? 80;
  return {
    score: {
      submissionId: s.submissionId,
      challengeId: s.challengeId,
      agentId: s.agentId,
      iteration: s.iteration,
      profile: "default",
      profileVersion: 1,
      family: "default",
      finalUnrounded: `${rounded}.25`,
      finalFraction: `${rounded * 4 + 1}/4`,
      finalRounded: rounded,
      band: "good",
      breakdown: JSON.stringify({
        interval: { low: { value: rounded - 2 }, high: { value: rounded + 2 } },
      }),
      input: "{}",
      humanReview: false,
      judgeMode: "offline",
      reportKey: `reports/${s.submissionId}.json`,
      usage: null,
      challengeVersion: over.challengeVersion ?? 1,
      filesSha256: over.filesSha256 ?? null,
      submittedAt: T0,
      enteredAt: T0,
      scoredAt: over.scoredAt ?? T0 + 1000,
    },
    components: [
      { key: "correctness", weight: 60, score: 0.9, scoreText: "0.9", contributionText: "54" },
    ],
    judgements: [
      {
        task: "t1",
        target: "",
        judge: "j1",
        source: "offline",
        dimensions: null,
        score: 0.8,
        rationale: "fine",
        injectionSuspected: false,
      },
    ],
    findings: [
      {
        tool: "scan",
        rule: "r1",
        cwe: null,
        severity: "low",
        file: "a.js",
        line: 1,
        message: "m",
      },
    ],
    testCounts: [{ suite: "static", bucket: "unit", passed: 3, total: 4 }],
  };
}

/** Submits, leases and scores a submission; answers its id. */
export async function seedScored(
  db: Db,
  agentId: string,
  challengeId: string,
  over: {
    finalRounded?: number;
    challengeVersion?: number;
    receivedAt?: number;
    scoredAt?: number;
    filesSha256?: string;
  } = {},
): Promise<string> {
  const { id, iteration } = await seedSubmission(db, agentId, challengeId, {
    receivedAt: over.receivedAt ?? T0,
  });
  const lease = await claimScoringLease(db, id, T0 + 500, 60_000);
  if (!lease.claimed) throw new Error("seed lease refused");
  const saved = await saveScore(
    db,
    scoreWrite({ submissionId: id, challengeId, agentId, iteration }, over),
    T0 + 1000,
  );
  if (!saved) throw new Error("seed score refused");
  return id;
}

/** Rows of a raw query, for assertions on what a function wrote. */
export async function rows<T>(sql: string, ...params: unknown[]): Promise<T[]> {
  const r = await env.DB.prepare(sql)
    .bind(...params)
    .all<T>();
  return r.results;
}
