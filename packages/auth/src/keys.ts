/**
 * @module auth/keys
 * Reading and verifying a presented API key (`bouts_<id>_<secret>`, checked by `verifyApiKey`
 * of `@bouts/db`: the SHA-256 compared in constant time, revoked keys refused). Invariants: an
 * unknown, malformed or revoked key gets the same 401 after the same amount of hashing work;
 * on an optional-key route no header is an anonymous caller, but a header that does not
 * verify is a 401, never a silent downgrade to the public view.
 */
import {
  createDb,
  findApiKey,
  parseApiKey,
  verifyApiKey,
  type KeyCredentials,
  type KeyOwner,
} from "@bouts/db";
import type { Result } from "@bouts/result";
import { fail, type AuthError } from "./errors.ts";

/** Who is calling, resolved from a verified API key. */
export type Principal = KeyOwner;

/** Who is calling a route where the key is optional. */
export type Caller = Principal | { role: "anonymous" };

/** The presented bearer token, and its key id and secret when it is shaped like a key. */
export type Bearer = { token: string; key: { id: string; secret: string } | null };

/** Reads the bearer token of an `Authorization` header; 401 when there is none. */
export function readBearer(header: string | undefined): Bearer {
  const h = header ?? "";
  const token = h.startsWith("Bearer ") ? h.slice(7).trim() : "";
  if (!token)
    fail({ reason: "unauthenticated", detail: "Send an API key: Authorization: Bearer <key>." });
  return { token, key: parseApiKey(token) };
}

/**
 * The principal of a presented key, given the row found for its id (undefined when there is
 * none); 401 unless the secret matches a live key. Every path hashes and compares once.
 */
export async function verifyPrincipal(
  bearer: Bearer,
  row: KeyCredentials | undefined,
): Promise<Principal> {
  const owner = await verifyApiKey(bearer.token, row, bearer.key);
  if (!owner)
    fail({ reason: "unauthenticated", detail: "The API key is not valid or was revoked." });
  return owner;
}

/** The principal of an `Authorization` header, looked up in D1; 401 unless it verifies. */
export async function resolvePrincipal(
  d1: D1Database,
  header: string | undefined,
): Promise<Principal> {
  const bearer = readBearer(header);
  const row = bearer.key ? await findApiKey(createDb(d1), bearer.key.id) : undefined;
  return verifyPrincipal(bearer, row);
}

/**
 * The caller of an optional-key route: anonymous without a header (or an empty one), else the
 * key's principal; a header that does not verify is refused.
 */
export async function resolveCaller(
  d1: D1Database,
  header: string | undefined,
): Promise<Result<Caller, AuthError>> {
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
  return { ok: true, value: owner };
}
