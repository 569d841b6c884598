/**
 * Seeds D1 and R2 the way the ingest role leaves them: an operator, a published challenge
 * with its bundle, agents that entered it, and queued submissions of the example archives.
 */
import { env } from "cloudflare:workers";
import {
  agents,
  challenges,
  createDb,
  entries,
  operators,
  sha256Hex,
  submissions,
} from "@bouts/db";
import type { RankingMode } from "@bouts/ranking";

export const db = () => createDb(env.DB);
let seq = 0;
const uid = (p: string) => `${p}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

async function fixture(path: string): Promise<ArrayBuffer> {
  const res = await env.FIXTURES.fetch(`http://fixtures/${path}`);
  if (!res.ok) throw new Error(`fixture ${path}: ${res.status}`);
  return res.arrayBuffer();
}

/** The scoring settings of a seeded challenge (default: the engineering profile). */
export interface SeedScoring {
  profile?: "engineering" | "agent";
  family?: string;
  /** JSON of custom agent weights, or null. */
  customWeights?: string | null;
  /** JSON of the challenge's limits, e.g. '{"tokenBudget":60000}'. */
  limits?: string;
}

/** A published challenge made from challenges/<name>. */
export async function seedChallenge(
  name: string,
  rankingMode: RankingMode = "latest",
  scoring: SeedScoring = {},
) {
  const now = Date.now();
  const operatorId = uid("op");
  const challengeId = uid(name);
  const bundleKey = `bundles/${challengeId}.tar.gz`;
  await env.ARTIFACTS.put(bundleKey, await fixture(`bundle/${name}`));
  const manifest = new TextDecoder().decode(await fixture(`manifest/${name}`));
  await db().insert(operators).values({ id: operatorId, name: "ops", createdAt: now });
  await db()
    .insert(challenges)
    .values({
      id: challengeId,
      slug: challengeId,
      title: name,
      description: `the ${name} example challenge`,
      status: "published",
      profile: scoring.profile ?? "engineering",
      family: scoring.family ?? "default",
      customWeights: scoring.customWeights ?? null,
      rankingMode,
      maxIterations: 10,
      limits: scoring.limits ?? "{}",
      bundleKey,
      bundleSha256: "0".repeat(64),
      bundleManifest: manifest,
      qaPassed: true,
      createdBy: operatorId,
      createdAt: now,
      updatedAt: now,
      publishedAt: now,
    });
  return { challengeId, operatorId, name, publishedAt: now };
}

/** An agent that entered the challenge a minute ago. */
export async function seedAgent(c: { challengeId: string; operatorId: string }) {
  const agentId = uid("agent");
  const now = Date.now();
  await db()
    .insert(agents)
    .values({ id: agentId, name: agentId, operatorId: c.operatorId, createdAt: now });
  await db()
    .insert(entries)
    .values({ agentId, challengeId: c.challengeId, enteredAt: now - 60_000 });
  return agentId;
}

/** A queued submission of challenges/<name>/submissions/<which> (or of raw bytes). */
export async function seedSubmission(
  c: { challengeId: string; name: string },
  agentId: string,
  which: string | Uint8Array,
  iteration = 1,
  parts: { trace?: string; claims?: string } = {},
) {
  const id = uid("sub");
  const bytes = typeof which === "string" ? await fixture(`submission/${c.name}/${which}`) : which;
  const key = `artifacts/${id}`;
  await env.ARTIFACTS.put(key, bytes);
  const traceKey = parts.trace === undefined ? null : `traces/${id}`;
  if (traceKey) await env.ARTIFACTS.put(traceKey, parts.trace!);
  const now = Date.now();
  await db()
    .insert(submissions)
    .values({
      id,
      agentId,
      challengeId: c.challengeId,
      iteration,
      artifactSha256: await sha256Hex(bytes),
      artifactKey: key,
      artifactSize: bytes.byteLength,
      artifactType: "tar.gz",
      claims: parts.claims ?? null,
      traceKey,
      traceSha256: traceKey ? "0".repeat(64) : null,
      status: "queued",
      failureReason: null,
      receivedAt: now,
      queuedAt: now,
      runningAt: null,
      scoredAt: null,
      failedAt: null,
    });
  return id;
}
