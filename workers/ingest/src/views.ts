/**
 * @module ingest/views
 * Row → wire mapping. Invariant: agent-facing views are built from an allow-list of fields;
 * the bundle manifest's tests and the QA report reach only the operator view.
 */
import type { z } from "@hono/zod-openapi";
import type { AgentRow, ApiKeyRow, ChallengeRow, EntryRow, SubmissionRow } from "@bouts/db";
import { ChallengeManifestSchema } from "@bouts/contracts";
import type {
  AgentSchema,
  ChallengeSchema,
  EntrySchema,
  KeyInfoSchema,
  SubmissionSchema,
} from "./schemas.ts";
import { parseStoredLimits, parseStoredWeights } from "./challenge-config.ts";

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** An agent on the wire. */
export function agentToWire(a: AgentRow): z.infer<typeof AgentSchema> {
  return { id: a.id, name: a.name, operatorId: a.operatorId, createdAt: iso(a.createdAt) };
}

/** A key on the wire, without its hash. */
export function keyToWire(k: ApiKeyRow): z.infer<typeof KeyInfoSchema> {
  return {
    id: k.id,
    role: k.role,
    label: k.label,
    createdAt: iso(k.createdAt),
    revokedAt: isoOrNull(k.revokedAt),
  };
}

/** An entry on the wire. */
export function entryToWire(e: EntryRow): z.infer<typeof EntrySchema> {
  return { challengeId: e.challengeId, agentId: e.agentId, enteredAt: iso(e.enteredAt) };
}

/** A challenge on the wire; `forOperator` adds the bundle summary and QA report. */
export function challengeToWire(
  ch: ChallengeRow,
  forOperator: boolean,
  maxArchiveBytes: number,
): z.infer<typeof ChallengeSchema> {
  const manifest = ch.bundleManifest
    ? ChallengeManifestSchema.safeParse(JSON.parse(ch.bundleManifest))
    : null;
  const m = manifest?.success ? manifest.data : null;
  const limits = parseStoredLimits(ch.limits);
  const view: z.infer<typeof ChallengeSchema> = {
    id: ch.id,
    slug: ch.slug,
    title: ch.title,
    description: ch.description,
    status: ch.status,
    profile: ch.profile,
    family: ch.family,
    customWeights: parseStoredWeights(ch.customWeights),
    rankingMode: ch.rankingMode,
    maxIterations: ch.maxIterations,
    limits: {
      maxArchiveBytes: Math.min(limits.maxArchiveBytes ?? maxArchiveBytes, maxArchiveBytes),
      cooldownSeconds: limits.cooldownSeconds,
      tokenBudget: limits.tokenBudget ?? null,
    },
    runtime: m?.runtime ?? null,
    deliverables: (m?.deliverables ?? []).map((d) => ({
      path: d.path,
      description: d.description,
      required: d.required,
    })),
    interface: m?.interface ?? null,
    createdAt: iso(ch.createdAt),
    publishedAt: isoOrNull(ch.publishedAt),
    closedAt: isoOrNull(ch.closedAt),
    closesAt: isoOrNull(ch.closesAt),
  };
  if (!forOperator) return view;
  return {
    ...view,
    bundle: ch.bundleSha256
      ? {
          sha256: ch.bundleSha256,
          staticTests: m?.staticTests.length ?? 0,
          adversarialTests: m?.adversarialTests.length ?? 0,
          qa: ch.qaPassed === null ? "not-run" : ch.qaPassed ? "passed" : "failed",
          qaReport: ch.qaReport ? (JSON.parse(ch.qaReport) as unknown) : null,
        }
      : null,
  };
}

/** A submission on the wire; `origin` makes its URL absolute. */
/** The columns of a waiting submission; a freshly written row has none of them yet. */
type WaitingColumns = "waitingReason" | "waitingSince" | "retryAt" | "publishedAt";

/**
 * A submission on the wire. `waiting` is set only while the status is `waiting`: why the
 * last attempt could not finish on our side, since when, and when the next attempt is due.
 */
export function submissionToWire(
  s: Omit<SubmissionRow, WaitingColumns> & Partial<Pick<SubmissionRow, WaitingColumns>>,
  origin: string,
): z.infer<typeof SubmissionSchema> {
  const claims = s.claims ? (JSON.parse(s.claims) as unknown[]) : [];
  return {
    id: s.id,
    url: `${origin}/v1/submissions/${s.id}`,
    challengeId: s.challengeId,
    iteration: s.iteration,
    status: s.status,
    failureReason: s.failureReason,
    failureCode: s.failureCode,
    waiting:
      s.status === "waiting"
        ? {
            reason: s.waitingReason ?? "the platform could not finish scoring it yet",
            since: isoOrNull(s.waitingSince ?? null),
            retryAt: isoOrNull(s.retryAt ?? null),
          }
        : null,
    artifact: { sha256: s.artifactSha256, bytes: s.artifactSize, type: s.artifactType },
    trace: s.traceSha256 ? { sha256: s.traceSha256 } : null,
    claims: claims.length,
    timestamps: {
      received: iso(s.receivedAt),
      queued: isoOrNull(s.queuedAt),
      running: isoOrNull(s.runningAt),
      scored: isoOrNull(s.scoredAt),
      failed: isoOrNull(s.failedAt),
    },
  };
}
