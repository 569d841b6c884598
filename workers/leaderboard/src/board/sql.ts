/**
 * @module leaderboard/board/sql
 * Every SQL statement of the `ChallengeLeaderboard` Durable Object's own SQLite storage: the
 * schema, the writes the object makes inside its transactions and the reads its views make
 * (docs/storage-schema.md, "Durable Object storage"). Plain functions that take the storage
 * first. Invariants: synchronous (no `await`, so a caller's reads and writes stay in one step
 * of the input gate); JSON columns were checked against their schemas when written and are
 * parsed back without another check; a score without a stored interval counts as a point.
 */
import type {
  AgentStanding,
  IntervalEnds,
  ResultRecord,
  Standing,
  TrajectoryPoint,
  UsageLike,
} from "@bouts/ranking";
import type { TrajectoryClass } from "@bouts/scoring";
import type { BaselineInput, BaselineLine, Overtaken, RebuildRow, TrajectoryView } from "../rpc.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS results (
  submission_id TEXT PRIMARY KEY,
  agent_id      TEXT NOT NULL,
  score         INTEGER NOT NULL,
  unrounded     TEXT NOT NULL,
  iteration     INTEGER NOT NULL,
  entered_at    INTEGER NOT NULL,
  submitted_at  INTEGER NOT NULL,
  scored_at     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS results_agent ON results (agent_id, iteration);
CREATE TABLE IF NOT EXISTS standings (
  agent_id          TEXT PRIMARY KEY,
  score             INTEGER NOT NULL,
  iterations        INTEGER NOT NULL,
  time_to_final_ms  INTEGER NOT NULL,
  submitted_at      INTEGER NOT NULL,
  submission_id     TEXT NOT NULL,
  unrounded         TEXT NOT NULL,
  trajectory        TEXT NOT NULL,
  trajectory_class  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS standings_board
  ON standings (score DESC, iterations, time_to_final_ms, submitted_at, agent_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS overtaken (
  submission_id TEXT PRIMARY KEY,
  agents        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS score_intervals (
  submission_id TEXT PRIMARY KEY,
  low           REAL NOT NULL,
  high          REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS pairing_profiles (
  submission_id TEXT PRIMARY KEY,
  profile       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS run_usage (
  submission_id TEXT PRIMARY KEY,
  usage         TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS baselines (
  agent_id      TEXT PRIMARY KEY,
  submission_id TEXT NOT NULL,
  label         TEXT NOT NULL,
  kind          TEXT NOT NULL,
  score         INTEGER NOT NULL,
  unrounded     TEXT NOT NULL,
  scored_at     INTEGER NOT NULL
);
`;

/** `WHERE` of a statement over some agents' standings: their ids as one JSON parameter. */
const AGENTS_IN = "agent_id IN (SELECT value FROM json_each(?))";

type ResultRow = {
  submission_id: string;
  agent_id: string;
  score: number;
  unrounded: string;
  iteration: number;
  entered_at: number;
  submitted_at: number;
  scored_at: number;
};

type StandingRow = {
  agent_id: string;
  score: number;
  iterations: number;
  time_to_final_ms: number;
  submitted_at: number;
  submission_id: string;
  unrounded: string;
  trajectory: string;
  trajectory_class: string;
};

type RankingRow = Pick<
  StandingRow,
  "agent_id" | "score" | "iterations" | "time_to_final_ms" | "submitted_at"
>;

/** A score without a stored interval counts as a point ("82.075…" → 82.075). */
export function pointOf(unrounded: string): IntervalEnds {
  const v = Number(unrounded.replace("…", ""));
  return { low: v, high: v };
}

function toStanding(row: RankingRow): Standing {
  return {
    agentId: row.agent_id,
    score: row.score,
    iterations: row.iterations,
    timeToFinalMs: row.time_to_final_ms,
    submittedAt: row.submitted_at,
  };
}

function parseUsage(text: string | null): UsageLike | null {
  // Checked against RunUsageSchema when recorded.
  return text ? (JSON.parse(text) as UsageLike) : null;
}

// ─── Schema and meta ───

/** Creates the tables and indexes that do not exist yet (cheap at any board size). */
export function createSchema(sql: SqlStorage): void {
  sql.exec(SCHEMA);
}

export function readMeta(sql: SqlStorage, key: string): string | null {
  const row = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0];
  return row ? row.value : null;
}

export function writeMeta(sql: SqlStorage, key: string, value: string): void {
  sql.exec(
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    key,
    value,
  );
}

// ─── Results ───

/**
 * Inserts one result (with `ifNew`, not over a recorded one) and, when it was written, the
 * interval, pairing profile and usage it carries; answers whether the result was written.
 */
export function insertResult(
  sql: SqlStorage,
  r: RebuildRow,
  { ifNew = false }: { ifNew?: boolean } = {},
): boolean {
  const written = sql.exec(
    `INSERT INTO results (submission_id, agent_id, score, unrounded, iteration, entered_at, submitted_at, scored_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)${ifNew ? " ON CONFLICT (submission_id) DO NOTHING" : ""}`,
    r.submissionId,
    r.agentId,
    r.score,
    r.unrounded,
    r.iteration,
    r.enteredAt,
    r.submittedAt,
    r.scoredAt,
  ).rowsWritten;
  if (written === 0) return false;
  if (r.interval)
    sql.exec(
      `INSERT INTO score_intervals (submission_id, low, high) VALUES (?, ?, ?)
       ON CONFLICT (submission_id) DO NOTHING`,
      r.submissionId,
      r.interval.low,
      r.interval.high,
    );
  if (r.pairing)
    sql.exec(
      `INSERT INTO pairing_profiles (submission_id, profile) VALUES (?, ?)
       ON CONFLICT (submission_id) DO NOTHING`,
      r.submissionId,
      JSON.stringify(r.pairing),
    );
  if (r.usage)
    sql.exec(
      `INSERT INTO run_usage (submission_id, usage) VALUES (?, ?)
       ON CONFLICT (submission_id) DO NOTHING`,
      r.submissionId,
      JSON.stringify(r.usage),
    );
  return true;
}

/** The agent whose result `submissionId` is (the result must be recorded). */
export function findResultOwner(sql: SqlStorage, submissionId: string): string {
  return sql
    .exec<{ agent_id: string }>(
      "SELECT agent_id FROM results WHERE submission_id = ?",
      submissionId,
    )
    .one().agent_id;
}

/** Every result of one agent, in no particular order. */
export function listResults(sql: SqlStorage, agentId: string): ResultRecord[] {
  return sql
    .exec<ResultRow>("SELECT * FROM results WHERE agent_id = ?", agentId)
    .toArray()
    .map((row) => ({
      submissionId: row.submission_id,
      agentId: row.agent_id,
      score: row.score,
      unrounded: row.unrounded,
      iteration: row.iteration,
      enteredAt: row.entered_at,
      submittedAt: row.submitted_at,
      scoredAt: row.scored_at,
    }));
}

/** Every agent with a recorded result. */
export function listResultAgents(sql: SqlStorage): string[] {
  return sql
    .exec<{ agent_id: string }>("SELECT DISTINCT agent_id FROM results")
    .toArray()
    .map((r) => r.agent_id);
}

/** Empties every table a rebuild replaces (results, standings and what rides with them). */
export function clearBoard(sql: SqlStorage): void {
  sql.exec(
    `DELETE FROM results; DELETE FROM standings; DELETE FROM score_intervals;
     DELETE FROM pairing_profiles; DELETE FROM baselines; DELETE FROM run_usage;`,
  );
}

/**
 * Stores what an applied result reported as overtaken; replaced, not kept (after a rebuild
 * dropped the result, this application is the one to repeat), and no row for an empty list.
 */
export function writeOvertaken(
  sql: SqlStorage,
  submissionId: string,
  overtaken: readonly Overtaken[],
): void {
  if (overtaken.length > 0)
    sql.exec(
      `INSERT INTO overtaken (submission_id, agents) VALUES (?, ?)
       ON CONFLICT (submission_id) DO UPDATE SET agents = excluded.agents`,
      submissionId,
      JSON.stringify(overtaken),
    );
  else sql.exec("DELETE FROM overtaken WHERE submission_id = ?", submissionId);
}

/**
 * What an applied result reported; [] when it passed nobody (or predates the table). A repeated
 * `recordResult` answers it, so a caller retrying after a partial failure re-sends the same list.
 */
export function readOvertaken(sql: SqlStorage, submissionId: string): Overtaken[] {
  const row = sql
    .exec<{ agents: string }>("SELECT agents FROM overtaken WHERE submission_id = ?", submissionId)
    .toArray()[0];
  return row ? (JSON.parse(row.agents) as Overtaken[]) : [];
}

// ─── Standings ───

export function writeStanding(sql: SqlStorage, s: AgentStanding): void {
  sql.exec(
    `INSERT INTO standings (agent_id, score, iterations, time_to_final_ms, submitted_at, submission_id, unrounded, trajectory, trajectory_class)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (agent_id) DO UPDATE SET score = excluded.score, iterations = excluded.iterations,
       time_to_final_ms = excluded.time_to_final_ms, submitted_at = excluded.submitted_at,
       submission_id = excluded.submission_id, unrounded = excluded.unrounded,
       trajectory = excluded.trajectory, trajectory_class = excluded.trajectory_class`,
    s.agentId,
    s.score,
    s.iterations,
    s.timeToFinalMs,
    s.submittedAt,
    s.submissionId,
    s.unrounded,
    JSON.stringify(s.trajectory),
    s.trajectoryClass,
  );
}

/** One agent's stored standing in full, or null. */
export function findStanding(
  sql: SqlStorage,
  agentId: string,
): (AgentStanding & { trajectory: TrajectoryPoint[] }) | null {
  const row = sql
    .exec<StandingRow>("SELECT * FROM standings WHERE agent_id = ?", agentId)
    .toArray()[0];
  if (!row) return null;
  return {
    ...toStanding(row),
    submissionId: row.submission_id,
    unrounded: row.unrounded,
    trajectory: JSON.parse(row.trajectory) as TrajectoryPoint[],
    trajectoryClass: row.trajectory_class as TrajectoryClass,
  };
}

/** Every standing's ranking key, in board order (through `standings_board`: no sort). */
export function listStandingsInBoardOrder(sql: SqlStorage): Standing[] {
  return sql
    .exec<RankingRow>(
      `SELECT agent_id, score, iterations, time_to_final_ms, submitted_at FROM standings
       ORDER BY score DESC, iterations, time_to_final_ms, submitted_at, agent_id`,
    )
    .toArray()
    .map(toStanding);
}

/** Each given agent's ranking submission, unrounded score and history (one query). */
export function listTrajectories(sql: SqlStorage, agentIds: readonly string[]): TrajectoryView[] {
  return sql
    .exec<Pick<StandingRow, "agent_id" | "submission_id" | "unrounded" | "trajectory">>(
      `SELECT agent_id, submission_id, unrounded, trajectory FROM standings WHERE ${AGENTS_IN}`,
      JSON.stringify(agentIds.map(String)),
    )
    .toArray()
    .map((row) => ({
      agentId: row.agent_id,
      submissionId: row.submission_id,
      unrounded: row.unrounded,
      trajectory: JSON.parse(row.trajectory) as TrajectoryPoint[],
    }));
}

/** Each given agent's trajectory class (one query). */
export function listTrajectoryClasses(
  sql: SqlStorage,
  agentIds: readonly string[],
): Map<string, TrajectoryClass> {
  if (agentIds.length === 0) return new Map();
  const rows = sql
    .exec<{ agent_id: string; trajectory_class: string }>(
      `SELECT agent_id, trajectory_class FROM standings WHERE ${AGENTS_IN}`,
      JSON.stringify(agentIds),
    )
    .toArray();
  return new Map(rows.map((r) => [r.agent_id, r.trajectory_class as TrajectoryClass]));
}

// ─── Intervals and pairing profiles ───

/** Every standing's interval ends: its ranking submission's stored interval, or its point. */
export function listStandingIntervals(sql: SqlStorage): [string, IntervalEnds][] {
  return sql
    .exec<{ agent_id: string; unrounded: string; low: number | null; high: number | null }>(
      `SELECT s.agent_id, s.unrounded, i.low, i.high FROM standings s
       LEFT JOIN score_intervals i ON i.submission_id = s.submission_id`,
    )
    .toArray()
    .map((row) => [
      row.agent_id,
      row.low !== null && row.high !== null
        ? { low: row.low, high: row.high }
        : pointOf(row.unrounded),
    ]);
}

/** The stored interval of a submission, or its score as a point when it has none. */
export function findInterval(
  sql: SqlStorage,
  submissionId: string,
  unrounded: string,
): IntervalEnds {
  const row = sql
    .exec<{ low: number; high: number }>(
      "SELECT low, high FROM score_intervals WHERE submission_id = ?",
      submissionId,
    )
    .toArray()[0];
  return row ? { low: row.low, high: row.high } : pointOf(unrounded);
}

/** What the paired window reads of an agent's ranking submission. */
export interface WindowRow {
  agentId: string;
  submissionId: string;
  unrounded: string;
  /** The stored pairing profile as JSON (parsed only when compiled); null when none. */
  profile: string | null;
}

/** The ranking submissions of the given agents with their pairing profiles (one query). */
export function listWindowRows(sql: SqlStorage, agentIds: readonly string[]): WindowRow[] {
  return sql
    .exec<{ agent_id: string; submission_id: string; unrounded: string; profile: string | null }>(
      `SELECT s.agent_id, s.submission_id, s.unrounded, p.profile FROM standings s
       LEFT JOIN pairing_profiles p ON p.submission_id = s.submission_id
       WHERE s.${AGENTS_IN}`,
      JSON.stringify(agentIds),
    )
    .toArray()
    .map((row) => ({
      agentId: row.agent_id,
      submissionId: row.submission_id,
      unrounded: row.unrounded,
      profile: row.profile,
    }));
}

// ─── Usage ───

/** The stored usage and unrounded score of each given agent's ranking submission (one query). */
export function listUsage(
  sql: SqlStorage,
  agentIds: readonly string[],
): Map<string, { usage: UsageLike | null; unrounded: string }> {
  if (agentIds.length === 0) return new Map();
  const rows = sql
    .exec<{ agent_id: string; unrounded: string; usage: string | null }>(
      `SELECT s.agent_id, s.unrounded, u.usage FROM standings s
       LEFT JOIN run_usage u ON u.submission_id = s.submission_id
       WHERE s.${AGENTS_IN}`,
      JSON.stringify(agentIds),
    )
    .toArray();
  return new Map(
    rows.map((r) => [r.agent_id, { usage: parseUsage(r.usage), unrounded: r.unrounded }]),
  );
}

/** A standing's ranking key with its ranking submission's unrounded score and stored usage. */
export interface UsageRow {
  standing: Standing;
  unrounded: string;
  usage: UsageLike | null;
}

/** The given agents' standings with their usage (null: every standing), in no order. */
export function listStandingUsage(sql: SqlStorage, agentIds: readonly string[] | null): UsageRow[] {
  if (agentIds?.length === 0) return [];
  return sql
    .exec<RankingRow & { unrounded: string; usage: string | null }>(
      `SELECT s.agent_id, s.score, s.iterations, s.time_to_final_ms, s.submitted_at, s.unrounded,
         u.usage FROM standings s LEFT JOIN run_usage u ON u.submission_id = s.submission_id` +
        (agentIds ? ` WHERE s.${AGENTS_IN}` : ""),
      ...(agentIds ? [JSON.stringify(agentIds)] : []),
    )
    .toArray()
    .map((r) => ({ standing: toStanding(r), unrounded: r.unrounded, usage: parseUsage(r.usage) }));
}

// ─── Baselines ───

/** Whether exactly this baseline score is stored already. */
export function hasBaseline(sql: SqlStorage, b: BaselineInput): boolean {
  return (
    sql
      .exec(
        "SELECT 1 FROM baselines WHERE agent_id = ? AND submission_id = ? AND score = ? AND unrounded = ?",
        b.agentId,
        b.submissionId,
        b.score,
        b.unrounded,
      )
      .toArray().length > 0
  );
}

export function writeBaseline(sql: SqlStorage, b: BaselineInput): void {
  sql.exec(
    `INSERT INTO baselines (agent_id, submission_id, label, kind, score, unrounded, scored_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (agent_id) DO UPDATE SET submission_id = excluded.submission_id,
       label = excluded.label, kind = excluded.kind, score = excluded.score,
       unrounded = excluded.unrounded, scored_at = excluded.scored_at`,
    b.agentId,
    b.submissionId,
    b.label,
    b.kind,
    b.score,
    b.unrounded,
    b.scoredAt,
  );
}

/** The baselines, best first, each with the number of standings scoring at least as much. */
export function listBaselines(sql: SqlStorage): BaselineLine[] {
  return sql
    .exec<{
      agent_id: string;
      submission_id: string;
      label: string;
      kind: string;
      score: number;
      unrounded: string;
      after_rank: number;
    }>(
      `SELECT b.agent_id, b.submission_id, b.label, b.kind, b.score, b.unrounded,
         (SELECT COUNT(*) FROM standings s WHERE s.score >= b.score) AS after_rank
       FROM baselines b ORDER BY b.score DESC, b.label`,
    )
    .toArray()
    .map((r) => ({
      agentId: r.agent_id,
      submissionId: r.submission_id,
      label: r.label,
      kind: r.kind === "reference" || r.kind === "stub" ? r.kind : "other",
      score: r.score,
      unrounded: r.unrounded,
      afterRank: r.after_rank,
    }));
}
