/**
 * @module db/queries/promotion
 * Promoting a challenge version (docs/design.md §30) in one D1 batch, and the reads of what a
 * promotion left (superseded scores, results on a version, promoted rescores). Invariants: the
 * batch has a fixed number of statements (set-based over `json_each`, so a board of any size
 * promotes in one transaction); every statement after the first is guarded by the decision id
 * the first wrote, so a refused or repeated promotion changes nothing.
 */
import { asc, eq } from "drizzle-orm";
import type { Db } from "../db.ts";
import { AUDIT_COLUMNS, prepareAuditEvent, type AuditEventInput } from "./audit.ts";
import { supersededScores } from "../schema-versions.ts";
import type { ChallengeSplitRow } from "../schema-private.ts";
import type { ResultHistoryRow } from "./leaderboard.ts";
/** The columns of `scores` a promotion replaces, and where each comes from in a `ScoreWrite`. */
const SCORE_FIELDS: readonly (readonly [column: string, path: string])[] = [
  ["profile", "profile"],
  ["profile_version", "profileVersion"],
  ["family", "family"],
  ["final_unrounded", "finalUnrounded"],
  ["final_fraction", "finalFraction"],
  ["final_rounded", "finalRounded"],
  ["band", "band"],
  ["breakdown", "breakdown"],
  ["input", "input"],
  ["human_review", "humanReview"],
  ["judge_mode", "judgeMode"],
  ["report_key", "reportKey"],
  ["usage", "usage"],
  ["files_sha256", "filesSha256"],
  ["scored_at", "scoredAt"],
];

/** Every column of `scores`, for the whole row a promotion keeps in `superseded_scores`. */
const SCORE_COLUMNS = [
  "submission_id",
  "challenge_id",
  "agent_id",
  "iteration",
  "profile",
  "profile_version",
  "family",
  "final_unrounded",
  "final_fraction",
  "final_rounded",
  "band",
  "breakdown",
  "input",
  "human_review",
  "judge_mode",
  "report_key",
  "usage",
  "challenge_version",
  "files_sha256",
  "submitted_at",
  "entered_at",
  "scored_at",
];

/** The full-score columns a promotion writes, from the rescore's `full_score` JSON. */
const FULL_FIELDS: readonly (readonly [column: string, path: string])[] = [
  ["agent_id", "agentId"],
  ["challenge_id", "challengeId"],
  ["final_unrounded", "finalUnrounded"],
  ["final_fraction", "finalFraction"],
  ["final_rounded", "finalRounded"],
  ["band", "band"],
  ["interval_low", "intervalLow"],
  ["interval_high", "intervalHigh"],
  ["breakdown", "breakdown"],
  ["report_key", "reportKey"],
  ["scored_at", "scoredAt"],
];

/** What a promotion needs besides the version: who, why, and the new version's split. */
export interface Promotion {
  challengeId: string;
  version: number;
  operatorId: string;
  reason: string;
  decisionId: string;
  now: number;
  /** The split the new version's manifest declares or draws, replacing the recorded one. */
  split: ChallengeSplitRow | null;
  /** The challenge-level `promoted` event. */
  event: AuditEventInput;
}

/**
 * Promotes a `ready` candidate whose every rescore scored, in one batch: the candidate becomes
 * `promoted`; each rescored submission's score row is kept whole in `superseded_scores`, gets a
 * `rescored` event (before and after) and is replaced, with its parts (components, judgements,
 * findings, test counts) and its full-suite score; the challenge's live bundle and version
 * become the candidate's; the split record follows; the `promoted` event is appended. Every
 * statement after the first runs only if the first wrote this decision's id. Returns whether
 * this call promoted it.
 */
export async function promoteVersion(db: Db, p: Promotion): Promise<boolean> {
  const d1 = db.$client;
  // ?1 challenge, ?2 version, ?3 decision id, ?4 now: the guard every later statement carries.
  const G = `EXISTS (SELECT 1 FROM challenge_versions WHERE challenge_id = ?1 AND version = ?2 AND decision_id = ?3 AND state = 'promoted')`;
  const mine = `SELECT submission_id FROM rescores WHERE challenge_id = ?1 AND version = ?2`;
  // D1 wants exactly as many values as the highest ?N a statement names.
  const bind = (sql: string, ...more: unknown[]) => {
    const used = Math.max(...[...sql.matchAll(/\?(\d+)/g)].map((m) => Number(m[1])));
    return d1
      .prepare(sql)
      .bind(...[p.challengeId, p.version, p.decisionId, p.now, ...more].slice(0, used));
  };
  const children = [
    [
      "score_components",
      "components",
      ["key", "weight", "score", "score_text", "contribution_text"],
      ["key", "weight", "score", "scoreText", "contributionText"],
    ],
    [
      "judgements",
      "judgements",
      [
        "task",
        "target",
        "judge",
        "source",
        "dimensions",
        "score",
        "rationale",
        "injection_suspected",
      ],
      [
        "task",
        "target",
        "judge",
        "source",
        "dimensions",
        "score",
        "rationale",
        "injectionSuspected",
      ],
    ],
    [
      "findings",
      "findings",
      ["tool", "rule", "cwe", "severity", "file", "line", "message"],
      ["tool", "rule", "cwe", "severity", "file", "line", "message"],
    ],
    [
      "test_counts",
      "testCounts",
      ["suite", "bucket", "passed", "total"],
      ["suite", "bucket", "passed", "total"],
    ],
  ] as const;
  const oldRow = `json_object(${SCORE_COLUMNS.map((c) => `'${c}', s.${c}`).join(", ")},
    'test_counts', (SELECT json_group_array(json_object('suite', suite, 'bucket', bucket, 'passed', passed, 'total', total)) FROM test_counts WHERE submission_id = s.submission_id),
    'findings', (SELECT json_group_array(json_object('tool', tool, 'rule', rule, 'severity', severity, 'file', file, 'line', line)) FROM findings WHERE submission_id = s.submission_id))`;
  const stmts: D1PreparedStatement[] = [
    bind(
      `UPDATE challenge_versions SET state = 'promoted', decided_by = ?5, decided_at = ?4, decision_id = ?3
       WHERE challenge_id = ?1 AND version = ?2 AND state = 'ready'
         AND NOT EXISTS (SELECT 1 FROM rescores WHERE challenge_id = ?1 AND version = ?2 AND state <> 'scored')
         AND EXISTS (SELECT 1 FROM challenges c WHERE c.id = ?1 AND c.status = 'published'
           AND c.version = challenge_versions.base_version)`,
      p.operatorId,
    ),
    bind(
      `INSERT OR IGNORE INTO superseded_scores (submission_id, version, challenge_id, score, superseded_at)
       SELECT s.submission_id, s.challenge_version, s.challenge_id, ${oldRow}, ?4
       FROM scores s WHERE s.submission_id IN (${mine}) AND ${G}`,
    ),
    bind(
      `INSERT OR IGNORE INTO audit_events (${AUDIT_COLUMNS})
       SELECT 'rescored:' || r.submission_id || ':v' || ?2, ?1, r.submission_id, r.agent_id, 'rescored',
         'submission', 'operator', ?5, ?6,
         json_object('version', s.challenge_version, 'score', s.final_rounded, 'unrounded', s.final_unrounded, 'band', s.band),
         json_object('version', ?2, 'score', r.final_rounded, 'unrounded', r.final_unrounded,
           'band', json_extract(r.score_write, '$.score.band')),
         ?4
       FROM rescores r JOIN scores s ON s.submission_id = r.submission_id
       WHERE r.challenge_id = ?1 AND r.version = ?2 AND ${G}`,
      p.operatorId,
      `rescored on challenge version ${p.version} at its promotion: ${p.reason}`.slice(0, 2000),
    ),
    ...children.map(([table]) =>
      bind(`DELETE FROM ${table} WHERE submission_id IN (${mine}) AND ${G}`),
    ),
    bind(
      `UPDATE scores SET ${SCORE_FIELDS.map(([c, f]) => `${c} = json_extract(r.score_write, '$.score.${f}')`).join(", ")},
         challenge_version = ?2
       FROM rescores r
       WHERE r.challenge_id = ?1 AND r.version = ?2 AND r.submission_id = scores.submission_id AND ${G}`,
    ),
    ...children.map(([table, key, columns, fields]) =>
      bind(
        `INSERT OR IGNORE INTO ${table} (submission_id, ${table === "findings" ? "ordinal, " : ""}${columns.join(", ")})
         SELECT r.submission_id, ${table === "findings" ? "CAST(j.key AS INTEGER), " : ""}${fields.map((f) => `json_extract(j.value, '$.${f}')`).join(", ")}
         FROM rescores r, json_each(r.score_write, '$.${key}') j
         WHERE r.challenge_id = ?1 AND r.version = ?2 AND ${G}`,
      ),
    ),
    bind(
      `DELETE FROM full_scores WHERE submission_id IN (${mine} AND full_score IS NULL) AND ${G}`,
    ),
    bind(
      `INSERT INTO full_scores (submission_id, ${FULL_FIELDS.map(([c]) => c).join(", ")})
       SELECT r.submission_id, ${FULL_FIELDS.map(([, f]) => `json_extract(r.full_score, '$.${f}')`).join(", ")}
       FROM rescores r WHERE r.challenge_id = ?1 AND r.version = ?2 AND r.full_score IS NOT NULL AND ${G}
       ON CONFLICT (submission_id) DO UPDATE SET ${FULL_FIELDS.map(([c]) => `${c} = excluded.${c}`).join(", ")}`,
    ),
    bind(
      `UPDATE challenges SET version = ?2, bundle_key = cv.bundle_key, bundle_sha256 = cv.bundle_sha256,
         bundle_manifest = cv.bundle_manifest, qa_report = cv.qa_report, qa_passed = cv.qa_passed, updated_at = ?4
       FROM challenge_versions cv
       WHERE challenges.id = ?1 AND cv.challenge_id = ?1 AND cv.version = ?2 AND ${G}`,
    ),
    ...(p.split
      ? [
          bind(
            `INSERT INTO challenge_splits (challenge_id, method, seed, private_percent, private_ids, final_choices, bundle_sha256, recorded_at)
             SELECT ?1, ?5, ?6, ?7, ?8, ?9, ?10, ?4 WHERE ${G}
             ON CONFLICT (challenge_id) DO UPDATE SET method = excluded.method, seed = excluded.seed,
               private_percent = excluded.private_percent, private_ids = excluded.private_ids,
               final_choices = excluded.final_choices, bundle_sha256 = excluded.bundle_sha256,
               recorded_at = excluded.recorded_at`,
            p.split.method,
            p.split.seed,
            p.split.privatePercent,
            p.split.privateIds,
            p.split.finalChoices,
            p.split.bundleSha256,
          ),
        ]
      : [bind(`DELETE FROM challenge_splits WHERE challenge_id = ?1 AND ${G}`)]),
    prepareAuditEvent(
      d1,
      p.event,
      "EXISTS (SELECT 1 FROM challenge_versions WHERE challenge_id = ?2 AND version = ?13 AND decision_id = ?14)",
      [p.version, p.decisionId],
    ),
  ];
  const results = await d1.batch(stmts);
  return (results[0]?.meta.changes ?? 0) > 0;
}

/** The scores a promotion replaced for one submission, oldest version first. */
export async function listSupersededScores(db: Db, submissionId: string) {
  return db
    .select()
    .from(supersededScores)
    .where(eq(supersededScores.submissionId, submissionId))
    .orderBy(asc(supersededScores.version))
    .all();
}

/** A ranking result as the board records it. */
export type VersionResultRow = ResultHistoryRow;

/**
 * The board's results as they were on `version`: every live score still computed on it, and
 * every score a promotion replaced that was (`superseded_scores`), less removed submissions and
 * baselines. Before a promotion of `version`'s successor this is the live board's history.
 */
export async function listResultsOnVersion(
  db: Db,
  challengeId: string,
  version: number,
): Promise<VersionResultRow[]> {
  const { results } = await db.$client
    .prepare(
      `SELECT submission_id AS submissionId, agent_id AS agentId, final_rounded AS score,
         final_unrounded AS unrounded, iteration, entered_at AS enteredAt,
         submitted_at AS submittedAt, scored_at AS scoredAt
       FROM scores WHERE challenge_id = ?1 AND challenge_version = ?2
         AND submission_id NOT IN (SELECT submission_id FROM submission_removals)
         AND agent_id IN (SELECT id FROM agents WHERE baseline_kind IS NULL)
       UNION ALL
       SELECT submission_id, json_extract(score, '$.agent_id'), json_extract(score, '$.final_rounded'),
         json_extract(score, '$.final_unrounded'), json_extract(score, '$.iteration'),
         json_extract(score, '$.entered_at'), json_extract(score, '$.submitted_at'),
         json_extract(score, '$.scored_at')
       FROM superseded_scores WHERE challenge_id = ?1 AND version = ?2
         AND submission_id NOT IN (SELECT submission_id FROM submission_removals)
         AND json_extract(score, '$.agent_id') IN (SELECT id FROM agents WHERE baseline_kind IS NULL)`,
    )
    .bind(challengeId, version)
    .all<VersionResultRow>();
  return results;
}

/** A promoted rescore of an agent's submission, for its `submission.rescored` event. */
export interface PromotedRescoreRow {
  submissionId: string;
  agentId: string;
  score: number;
  fraction: string;
  band: string;
  previousScore: number;
  previousFraction: string;
}

/**
 * The rescores a promotion of `version` applied to agents' submissions (baselines have no one to
 * tell), with the score each replaced (from `superseded_scores`, on `baseVersion`).
 */
export async function listPromotedRescores(
  db: Db,
  challengeId: string,
  version: number,
  baseVersion: number,
): Promise<PromotedRescoreRow[]> {
  const { results } = await db.$client
    .prepare(
      `SELECT s.submission_id AS submissionId, s.agent_id AS agentId, s.final_rounded AS score,
         s.final_fraction AS fraction, s.band AS band,
         json_extract(ss.score, '$.final_rounded') AS previousScore,
         json_extract(ss.score, '$.final_fraction') AS previousFraction
       FROM rescores r
       JOIN scores s ON s.submission_id = r.submission_id AND s.challenge_version = ?2
       JOIN superseded_scores ss ON ss.submission_id = r.submission_id AND ss.version = ?3
       WHERE r.challenge_id = ?1 AND r.version = ?2
         AND s.agent_id IN (SELECT id FROM agents WHERE baseline_kind IS NULL)
       ORDER BY s.submission_id`,
    )
    .bind(challengeId, version, baseVersion)
    .all<PromotedRescoreRow>();
  return results;
}
