/**
 * @module ingest/rebuild
 * The one audited board rebuild every operator action that re-ranks a challenge goes through
 * (the rebuild and the removal, routes/board-operations.ts; a version's promotion, versions.ts).
 * It reads the challenge's ranked history from D1 and hands it to the board through the board's
 * RPC (`BoardStub` of @bouts/contracts, on the `LEADERBOARD` binding). Invariants: removed
 * submissions are left out (`listResultHistory`); a `rebuilt` event with the board's size and
 * version before and after is appended once the board accepted the rows; a refused rebuild
 * changes nothing and appends nothing.
 */
import {
  appendAuditEvent,
  createDb,
  listBaselineResults,
  listResultHistory,
  listScoreUsage,
  listStoredBreakdowns,
  type Db,
} from "@bouts/db";
import { openingOf } from "@bouts/ranking";
import {
  boardExtrasOf,
  parseJson,
  parseStoredBreakdown,
  RunUsageSchema,
  type BoardExtras,
  type BoardNamespace,
  type BoardStub,
} from "@bouts/contracts";
import { fail } from "./errors.ts";

/** What a rebuild needs: D1, and the two calls of the board's RPC it makes. */
export interface RebuildEnv {
  DB: D1Database;
  /** One ChallengeLeaderboard Durable Object per challenge, named by challenge id. */
  LEADERBOARD: BoardNamespace<Pick<BoardStub, "getBandCounts" | "rebuild">>;
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
  env: RebuildEnv,
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
    fail({ reason: "board-refused", retryAfter: 60 });
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
