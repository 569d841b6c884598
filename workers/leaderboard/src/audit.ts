/**
 * @module leaderboard/audit
 * The audit trail as the public API shows it: an event's wire form and a page of events (the
 * history routes, routes/history.ts). The writers are elsewhere (the audited rebuild is the
 * ingest role's, with the other operator writes). Invariant: a stored `before`/`after` that is
 * not a JSON object is shown as null, never as text.
 */
import { parseJson } from "@bouts/contracts";
import type { AuditEventRow } from "@bouts/db";

/** The wire form of an audit event. */
export function auditEventToWire(e: AuditEventRow) {
  const obj = (text: string | null): Record<string, unknown> | null => {
    const v: unknown = text === null ? null : parseJson(text);
    return v !== null && typeof v === "object" && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : null;
  };
  return {
    seq: e.seq,
    id: e.id,
    type: e.type,
    challengeId: e.challengeId,
    submissionId: e.submissionId,
    actor: { kind: e.actorKind, id: e.actorId },
    cause: e.cause,
    before: obj(e.before),
    after: obj(e.after),
    at: new Date(e.at).toISOString(),
  };
}

/** A page of events and the `after` of the next page (null when this page is not full). */
export function historyPage(rows: AuditEventRow[], limit: number) {
  return {
    events: rows.map(auditEventToWire),
    next: rows.length === limit ? (rows.at(-1)?.seq ?? null) : null,
  };
}
