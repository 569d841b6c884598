/**
 * @module db/queries/version-report
 * The diff report of a candidate challenge version (docs/design.md §30): per agent, its place on
 * the base version's board and on the board the candidate would publish (the rescored
 * submissions with their new scores, ranked by `@bouts/ranking`'s rules), and every rescored
 * submission with its old and new score and the tests whose verdict changed. Here rather than in
 * a role because two roles show the same report and no role imports another: the ingest role
 * answers it from the versions API (and after a promotion or a discard), the leaderboard role
 * draws it on the operator's HTML page. It is D1 reads combined by `@bouts/ranking`, which this
 * package already depends on. Invariants: it only reads (no clock, no writes); it names hidden
 * tests, so its callers serve it to the owning operator only.
 */
import { compareBoards } from "@bouts/ranking";
import type { Db } from "../db.ts";
import type { ChallengeRow } from "../schema.ts";
import type { ChallengeVersionRow } from "../schema-versions.ts";
import { listBaselineResults } from "./baselines.ts";
import { listAgentNames } from "./leaderboard.ts";
import { listResultsOnVersion } from "./promotion.ts";
import { countRescores, listRescores } from "./versions.ts";

/** Most ids one name lookup binds (D1's bound-parameter limit is 100; one JSON parameter). */
const NAME_CHUNK = 500;

/** One test whose verdict changed (as the rescore recorded it). */
interface ChangedTestView {
  suite: string;
  id: string;
  name: string;
  bucket: string;
  before: string | null;
  after: string | null;
}

const scoreView = (score: number | null, unrounded: string | null) =>
  score === null || unrounded === null ? null : { score, unrounded };

/**
 * The diff report of a version of `ch`: its state, each agent's places and each rescored
 * submission. `ch` is the challenge as the report should see it (its live version).
 */
export async function buildDiffReport(db: Db, ch: ChallengeRow, v: ChallengeVersionRow) {
  const [rows, live, baselines] = await Promise.all([
    listRescores(db, ch.id, v.version),
    listResultsOnVersion(db, ch.id, v.baseVersion),
    listBaselineResults(db, ch.id),
  ]);
  const scored = new Map(
    rows.flatMap((r) =>
      r.state === "scored" && r.finalRounded !== null && r.finalUnrounded !== null
        ? [[r.submissionId, { score: r.finalRounded, unrounded: r.finalUnrounded }] as const]
        : [],
    ),
  );
  const places = compareBoards(live, scored, ch.rankingMode);
  const oldScore = new Map(live.map((r) => [r.submissionId, r] as const));
  const baselineIds = new Set(baselines.map((b) => b.agentId));
  const agentIds = [...new Set(rows.map((r) => r.agentId))];
  const names = new Map<string, string>();
  for (let i = 0; i < agentIds.length; i += NAME_CHUNK)
    for (const n of await listAgentNames(db, agentIds.slice(i, i + NAME_CHUNK)))
      names.set(n.id, n.name);
  const submissionOf = (r: (typeof rows)[number]) => {
    const was =
      oldScore.get(r.submissionId) ?? baselines.find((b) => b.submissionId === r.submissionId);
    return {
      submissionId: r.submissionId,
      state: r.state,
      before: was ? { score: was.score, unrounded: was.unrounded } : null,
      after: scoreView(r.finalRounded, r.finalUnrounded),
      error: r.state === "failed" ? r.error : null,
      changedTests: r.changedTests ? (JSON.parse(r.changedTests) as ChangedTestView[]) : [],
    };
  };
  const byAgent = new Map<string, ReturnType<typeof submissionOf>[]>();
  for (const r of rows)
    byAgent.set(r.agentId, [...(byAgent.get(r.agentId) ?? []), submissionOf(r)]);
  return {
    challengeId: ch.id,
    version: v.version,
    baseVersion: v.baseVersion,
    liveVersion: ch.version,
    state: v.state,
    note: v.note,
    rescores: countRescores(rows),
    agents: places
      .filter((p) => !baselineIds.has(p.agentId))
      .map((p) => ({
        agentId: p.agentId,
        name: names.get(p.agentId) ?? p.agentId,
        before: p.before,
        after: p.after,
        rankChange: p.before && p.after ? p.before.rank - p.after.rank : null,
        submissions: byAgent.get(p.agentId) ?? [],
      })),
    baselines: baselines
      .filter((b) => byAgent.has(b.agentId))
      .map((b) => ({ agentId: b.agentId, label: b.label, submissions: byAgent.get(b.agentId)! })),
  };
}

/** The diff report as {@link buildDiffReport} answers it. */
export type DiffReport = Awaited<ReturnType<typeof buildDiffReport>>;
