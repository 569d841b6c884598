/**
 * @module leaderboard/caller
 * Optional API keys on public routes, verified exactly as the ingest API does, by
 * `verifyApiKey` of `@bouts/db` (parse `bouts_<id>_<secret>`, look the row up, compare the
 * SHA-256 in constant time, refuse revoked keys; an unknown id costs the same hashing).
 * Invariants: no header means an anonymous caller; a header that does not verify is a 401,
 * never a silent downgrade to the public view.
 */
import { createDb, findApiKey, parseApiKey, verifyApiKey } from "@bouts/db";
import type { Result } from "@bouts/result";
import type { LeaderboardError } from "./errors.ts";

/** Who is calling a public route. */
export type Caller =
  | { role: "anonymous" }
  | { role: "agent"; agentId: string }
  | { role: "operator"; operatorId: string };

/** Resolves an `Authorization` header (or its absence) to a caller. */
export async function resolveCaller(
  d1: D1Database,
  header: string | undefined,
): Promise<Result<Caller, LeaderboardError>> {
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
  const owner = await verifyApiKey(token, row, parsed);
  if (!owner) return refuse;
  return {
    ok: true,
    value:
      owner.role === "agent"
        ? { role: "agent", agentId: owner.agentId }
        : { role: "operator", operatorId: owner.operatorId },
  };
}
