/**
 * @module ingest/agent-actions
 * What an agent does through the write API, as functions both front doors call: the HTTP
 * routes (`routes/`) and the platform's MCP tools (workers/platform/src/mcp). Each takes the
 * already-verified principal, so authentication stays with the caller; each fails with this
 * role's domain error (`fail`), rendered as problem+json over HTTP and as a tool error over
 * MCP. Invariants: another agent's submission is reported exactly like a missing one; a draft
 * is invisible; the submit rate limit is counted after authentication and before the body is
 * read; there is no second implementation of any of it.
 */
import { agentIdOf, checkRateLimit, type Principal } from "@bouts/auth";
import {
  createDb,
  enterChallenge,
  findSubmission,
  findSubmitContext,
  listFinalChoices,
  type SubmitContext,
} from "@bouts/db";
import { pastDeadline } from "./deadline.ts";
import { chooseFinalSubmissions, resolveFinalChoiceLimit } from "./private-board.ts";
import { acceptSubmission, type SubmitAnswer } from "./accept-submission.ts";
import { invalid } from "./submission-parts.ts";
import { visibleChallenge } from "./access.ts";
import { readConfig } from "./config.ts";
import { fail } from "./errors.ts";
import type { EntrySchema, SubmissionSchema } from "./schemas.ts";
import { entryToWire, submissionToWire } from "./views.ts";
import type { z } from "@hono/zod-openapi";

/** The format of an `Idempotency-Key`: 1 to 255 printable ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Enters a published challenge (idempotent): the entry, and whether it is new. */
export async function enterVisibleChallenge(
  env: Env,
  principal: Principal,
  idOrSlug: string,
): Promise<{ entry: z.infer<typeof EntrySchema>; created: boolean }> {
  const agentId = agentIdOf(principal);
  const db = createDb(env.DB);
  const ch = await visibleChallenge(db, principal, idOrSlug);
  if (ch.status !== "published" || pastDeadline(ch, Date.now())) {
    fail({ reason: "conflict", detail: "The challenge is closed to new entries." });
  }
  const { entry, created } = await enterChallenge(db, {
    agentId,
    challengeId: ch.id,
    enteredAt: Date.now(),
  });
  return { entry: entryToWire(entry), created };
}

/** One of the calling agent's submissions; another agent's is `not-found`, like a missing one. */
export async function readOwnSubmission(
  env: Env,
  principal: Principal,
  id: string,
  origin: string,
): Promise<z.infer<typeof SubmissionSchema>> {
  const agentId = agentIdOf(principal);
  const s = await findSubmission(createDb(env.DB), id);
  if (!s || s.agentId !== agentId) fail({ reason: "not-found", resource: "submission" });
  return submissionToWire(s, origin);
}

/**
 * The submit context of a key on a challenge (the key's row, the challenge, the agent's
 * standing there and any answer stored under the idempotency key), in one query.
 */
export function loadSubmitContext(
  env: Env,
  keyId: string,
  idOrSlug: string,
  idempotencyKey: string | null,
): Promise<SubmitContext | undefined> {
  const now = Date.now();
  return findSubmitContext(
    createDb(env.DB),
    keyId,
    idOrSlug,
    idempotencyKey,
    now,
    now - readConfig(env).runnerWindowMs,
  );
}

/** A submission as the submit route takes it, after authentication. */
export interface SubmitCall {
  principal: Principal;
  /** From `loadSubmitContext` for the same key, challenge and idempotency key. */
  context: SubmitContext;
  idempotencyKey: string | null;
  /** The multipart request (`archive`, optional `claims` and `trace`). */
  request: Request;
  origin: string;
}

/**
 * Submits: checks the idempotency key's format, counts the agent's submit rate limit (429),
 * then accepts, replays or refuses the submission (`acceptSubmission`). The answer is the
 * exact bytes to send (the 202 or a recorded refusal); other refusals fail.
 */
export async function submitSolution(env: Env, call: SubmitCall): Promise<SubmitAnswer> {
  const agentId = agentIdOf(call.principal);
  const key = call.idempotencyKey;
  if (key !== null && !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    fail(invalid("Idempotency-Key", "1 to 255 printable ASCII characters"));
  }
  // After authentication, so that nobody can spend another agent's budget; before anything
  // is read from the body or stored. Keyed by the agent: its keys share one budget.
  await checkRateLimit(env.SUBMIT_RATE_LIMIT, call.principal, "submissions");
  const answer = await acceptSubmission(env, createDb(env.DB), readConfig(env), {
    agentId,
    keyId: call.principal.keyId,
    context: call.context,
    idempotencyKey: key,
    request: call.request,
    origin: call.origin,
  });
  if (!answer.ok) fail(answer.error);
  return answer.value;
}

/** An agent's final choices as the API and the MCP tool show them. */
export interface FinalChoicesView {
  challengeId: string;
  submissionIds: string[];
  limit: number;
  fallback: "latest";
}

/** The agent's final choices on a challenge it can see (docs/design.md §29). */
export async function readFinalChoices(
  env: Env,
  principal: Principal,
  challengeRef: string,
): Promise<FinalChoicesView> {
  const db = createDb(env.DB);
  const ch = await visibleChallenge(db, principal, challengeRef);
  const rows = await listFinalChoices(db, ch.id, agentIdOf(principal));
  return {
    challengeId: ch.id,
    submissionIds: rows.map((r) => r.submissionId),
    limit: await resolveFinalChoiceLimit(db, ch.id),
    fallback: "latest",
  };
}

/** Replaces the agent's final choices (refusals as `chooseFinalSubmissions` gives them). */
export async function chooseFinalChoices(
  env: Env,
  principal: Principal,
  challengeRef: string,
  submissionIds: readonly string[],
): Promise<FinalChoicesView> {
  const db = createDb(env.DB);
  const ch = await visibleChallenge(db, principal, challengeRef);
  const ids = await chooseFinalSubmissions(db, ch, agentIdOf(principal), submissionIds, Date.now());
  return {
    challengeId: ch.id,
    submissionIds: ids,
    limit: await resolveFinalChoiceLimit(db, ch.id),
    fallback: "latest",
  };
}
