/**
 * @module leaderboard/audit
 * The audit trail as the API shows it, and the one audited board rebuild every operator action
 * that re-ranks a challenge goes through. Invariants: a rebuild reads the board back from D1
 * (removed submissions left out) and appends a `rebuilt` event with the board's size and
 * version before and after; a refused rebuild changes nothing and appends nothing.
 */
import {
  appendAuditEvent,
  createDb,
  listBaselineResults,
  listResultHistory,
  listScoreUsage,
  listStoredBreakdowns,
  type AuditEventRow,
  type Db,
} from "@bouts/db";
import { openingOf } from "@bouts/ranking";
import {
  boardExtrasOf,
  parseJson,
  parseStoredBreakdown,
  RunUsageSchema,
  type BoardExtras,
} from "@bouts/contracts";
import { fail } from "./errors.ts";
import type { LeaderboardBindings } from "./types.ts";

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

/** Stored breakdowns read per query by a rebuild: a breakdown is kilobytes. */
const BREAKDOWN_PAGE = 200;

/**
 * The board's extras of every stored breakdown of a challenge, by submission id. A breakdown
 * that does not parse gives none (logged; its score is rebuilt as one stored before intervals),
 * the one rule of `parseStoredBreakdown`, as when the score was published.
 */
async function readBoardExtras(db: Db, challengeId: string): Promise<Map<string, BoardExtras>> {
  const extras = new Map<string, BoardExtras>();
  for (let after: string | null = null; ;) {
    const page = await listStoredBreakdowns(db, challengeId, after, BREAKDOWN_PAGE);
    for (const row of page) {
      const stored = parseStoredBreakdown(row.breakdown);
      if (stored.ok) extras.set(row.submissionId, boardExtrasOf(stored.value));
      else
        console.error(
          `stored breakdown of ${row.submissionId} does not parse`,
          stored.error.detail,
        );
    }
    if (page.length < BREAKDOWN_PAGE) return extras;
    after = page.at(-1)!.submissionId;
  }
}

/** Who rebuilds, and why. */
export interface RebuildCause {
  operatorId: string;
  cause: string;
  /** Ties the event to the action that caused it, e.g. the removal's submission. */
  submissionId?: string;
}

/**
 * Replaces a challenge's board with its ranked history from D1 and appends the `rebuilt`
 * event. A board that refuses the rows answers 503 (a data fault) and nothing is appended.
 */
export async function rebuildAudited(
  env: LeaderboardBindings,
  ch: { id: string; rankingMode: "latest" | "best"; publishedAt: number | null; createdAt: number },
  by: RebuildCause,
) {
  const db = createDb(env.DB);
  const [history, baselines, stored, spent] = await Promise.all([
    listResultHistory(db, ch.id),
    listBaselineResults(db, ch.id),
    readBoardExtras(db, ch.id),
    listScoreUsage(db, ch.id),
  ]);
  // Each score's 95 % interval and pairing profile (`stored`) and what each run spent ride
  // along, so the rebuilt board keeps its rank ranges, paired comparisons and costs.
  const usages = new Map(
    spent.flatMap((u) => {
      const usage = RunUsageSchema.safeParse(parseJson(u.usage));
      return usage.success ? [[u.submissionId, usage.data] as const] : [];
    }),
  );
  const rows = history.map((row) => {
    const usage = usages.get(row.submissionId);
    return { ...row, ...(usage ? { usage } : {}), ...stored.get(row.submissionId) };
  });
  const board = env.LEADERBOARD.getByName(ch.id);
  const before = await board.getBandCounts();
  const done = await board.rebuild({
    challengeId: ch.id,
    rankingMode: ch.rankingMode,
    openedAt: openingOf(ch),
    rows,
    baselines: baselines.map(({ scoredAt, ...b }) => ({ ...b, scoredAt })),
  });
  if (!done.ok) {
    // Rows D1 holds that the board refuses: a data fault to investigate, not a client error.
    console.error(`rebuild of ${ch.id} refused`, done.error);
    fail({ reason: "unavailable", service: "leaderboard rebuild", retryAfter: 60 });
  }
  const now = Date.now();
  await appendAuditEvent(db, {
    id: crypto.randomUUID(),
    challengeId: ch.id,
    submissionId: by.submissionId ?? null,
    agentId: null,
    type: "rebuilt",
    scope: "challenge",
    actorKind: "operator",
    actorId: by.operatorId,
    cause: by.cause,
    before: { agents: before.total, version: before.version },
    after: { agents: done.value.agents, results: done.value.results, version: done.value.version },
    at: now,
  });
  return done.value;
}
