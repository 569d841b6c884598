/**
 * @module ingest/challenge-reads
 * The keyed views of challenges, for `GET /v1/challenges` and `GET /v1/challenges/{id}` with
 * an API key (the platform serves both views of those two operations). Invariants: an
 * operator sees its own drafts with their bundle summary and QA report, and other operators'
 * challenges only once published, as agents do; a challenge the caller may not see is
 * reported exactly like a missing one.
 */
import { createDb, findChallenge, listChallenges } from "@bouts/db";
import { canSeeChallenge, ownsChallenge } from "./access.ts";
import { readConfig } from "./config.ts";
import { ok, refuse, type Result } from "./result.ts";
import type { ChallengeListSchema, ChallengeSchema } from "./schemas.ts";
import type { Principal } from "./types.ts";
import { challengeToWire } from "./views.ts";
import type { z } from "@hono/zod-openapi";

/** Published and closed challenges, plus the calling operator's own drafts. */
export async function listVisibleChallenges(
  env: Env,
  p: Principal,
): Promise<z.infer<typeof ChallengeListSchema>> {
  const operator = p.role === "operator";
  const rows = await listChallenges(
    createDb(env.DB),
    operator ? ["draft", "published", "closed"] : ["published", "closed"],
  );
  const max = readConfig(env).maxArchiveBytes;
  const visible = rows.filter((r) => canSeeChallenge(p, r));
  return { challenges: visible.map((r) => challengeToWire(r, ownsChallenge(p, r), max)) };
}

/** One challenge by id or slug, as the caller may see it; `not-found` otherwise. */
export async function readVisibleChallenge(
  env: Env,
  p: Principal,
  idOrSlug: string,
): Promise<Result<z.infer<typeof ChallengeSchema>>> {
  const ch = await findChallenge(createDb(env.DB), idOrSlug);
  if (!ch || !canSeeChallenge(p, ch)) return refuse({ reason: "not-found", resource: "challenge" });
  return ok(challengeToWire(ch, ownsChallenge(p, ch), readConfig(env).maxArchiveBytes));
}
