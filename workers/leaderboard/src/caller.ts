/**
 * @module leaderboard/caller
 * Optional API keys on public routes. Verification is the ingest API's, built from the same
 * `@bouts/db` primitives (parse `bouts_<id>_<secret>`, look the row up, compare the SHA-256 in
 * constant time, refuse revoked keys; an unknown id costs the same hashing as a real one).
 * Invariants: no header means an anonymous caller; a header that does not verify is a 401,
 * never a silent downgrade to the public view.
 */
import { createDb, findApiKey, parseApiKey, verifySecret } from "@bouts/db";
import type { LeaderboardError } from "./errors.ts";

// A hash no secret produces, so unknown key ids cost the same comparison as real ones.
const DUMMY_HASH = "0".repeat(64);

/** Who is calling a public route. */
export type Caller =
  | { role: "anonymous" }
  | { role: "agent"; agentId: string }
  | { role: "operator"; operatorId: string };

/** Resolves an `Authorization` header (or its absence) to a caller. */
export async function resolveCaller(
  d1: D1Database,
  header: string | undefined,
): Promise<{ ok: true; value: Caller } | { ok: false; error: LeaderboardError }> {
  if (header === undefined || header === "") return { ok: true, value: { role: "anonymous" } };
  const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
  const refuse = {
    ok: false as const,
    error: {
      reason: "unauthenticated" as const,
      detail: "The API key is not valid or was revoked; omit Authorization for the public view.",
    },
  };
  if (!token) return refuse;
  const parsed = parseApiKey(token);
  const row = parsed ? await findApiKey(createDb(d1), parsed.id) : undefined;
  const ok = await verifySecret(parsed?.secret ?? token, row?.secretHash ?? DUMMY_HASH);
  if (!row || !ok || row.revokedAt !== null) return refuse;
  if (row.role === "agent" && row.agentId) {
    return { ok: true, value: { role: "agent", agentId: row.agentId } };
  }
  if (row.role === "operator" && row.operatorId) {
    return { ok: true, value: { role: "operator", operatorId: row.operatorId } };
  }
  return refuse;
}
