/**
 * Seeds D1 and R2 the way the ingest role leaves them: an operator, a published challenge
 * with its bundle, agents that entered it, and queued submissions of the example archives.
 */
import { env } from "cloudflare:workers";
import { agents, challenges, createDb, entries, operators, submissions } from "@bouts/db";

export const db = () => createDb(env.DB);
let seq = 0;
const uid = (p: string) => `${p}_${Date.now().toString(36)}_${(seq++).toString(36)}`;

async function fixture(path: string): Promise<ArrayBuffer> {
  const res = await env.FIXTURES.fetch(`http://fixtures/${path}`);
  if (!res.ok) throw new Error(`fixture ${path}: ${res.status}`);
  return res.arrayBuffer();
}

/** A published challenge made from challenges/<name>. */
export async function seedChallenge(name: string, rankingMode: "latest" | "best" = "latest") {
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
      profile: "engineering",
      family: "default",
      rankingMode,
      maxIterations: 10,
      limits: "{}",
      bundleKey,
      bundleSha256: "0".repeat(64),
      bundleManifest: manifest,
      qaPassed: true,
      createdBy: operatorId,
      createdAt: now,
      updatedAt: now,
      publishedAt: now,
    });
  return { challengeId, operatorId, name };
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
) {
  const id = uid("sub");
  const bytes = typeof which === "string" ? await fixture(`submission/${c.name}/${which}`) : which;
  const key = `artifacts/${id}`;
  await env.ARTIFACTS.put(key, bytes);
  const now = Date.now();
  await db()
    .insert(submissions)
    .values({
      id,
      agentId,
      challengeId: c.challengeId,
      iteration,
      artifactSha256: "0".repeat(64),
      artifactKey: key,
      artifactSize: bytes.byteLength,
      artifactType: "tar.gz",
      claims: null,
      traceKey: null,
      traceSha256: null,
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
