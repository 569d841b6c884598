/**
 * @module leaderboard/leaderboard-object
 * `ChallengeLeaderboard`: one Durable Object per challenge, the ranking authority. Invariants:
 * SQLite is the truth, the `@bouts/ranking` index a lazy cache of `standings` updated in the same
 * synchronous step; no mutating RPC awaits between its reads and writes (the input gate serializes
 * them; a standing depends only on its agent's history, so every order gives the same board);
 * recording is idempotent by submission id; `version` grows by one on every change.
 */
import { DurableObject } from "cloudflare:workers";
import {
  buildRankingIndex,
  compilePrices,
  computeAgentStanding,
  computeCost,
  CostOrder,
  parseUsdAmount,
  priceTokens,
  type CompiledPrices,
  type CostBreakdown,
  type CostEntry,
  type UsageLike,
  countPaired,
  PAIRED_WINDOW,
  RankRanges,
  type PairedEntry,
  type IntervalEnds,
  sameRankingKey,
  type AgentStanding,
  type RankedStanding,
  type RankingIndex,
  type RankingMode,
  type ResultRecord,
  type Standing,
  type TrajectoryPoint,
} from "@bouts/ranking";
import {
  compilePairing,
  resolveBand,
  type CompiledPairing,
  type PairingProfile,
  type TrajectoryClass,
} from "@bouts/scoring";
import {
  RebuildInputSchema,
  RecordBaselineInputSchema,
  RecordResultInputSchema,
  PageRequestSchema,
  type CostPlot,
  type PricesInput,
  type RebuildRow,
  type BaselineInput,
  type BaselineLine,
  type BandCountsView,
  type BoardEntry,
  type BoardResult,
  type BoardRpc,
  type BoardWriteError,
  type BoardPage,
  type Overtaken,
  type PageError,
  type RankCertainty,
  type RankChangedMessage,
  type RecordResultOutcome,
  type StandingView,
  type TrajectoryView,
} from "./rpc.ts";

/** Most agents reported as overtaken by one update (the nearest ones passed over). */
export const MAX_OVERTAKEN = 100;
/** Largest page the object serves. */
export const MAX_PAGE_LIMIT = 100;
/** Compiled pairing profiles the object keeps in memory (a page's window is ~200). */
const MAX_CACHED_PAIRINGS = 20_000;
/**
 * Changed standings the held cost order takes at its next read (one pass over the order, then a
 * query row, a binary search and an array move each); past this many the order is dropped and
 * built afresh.
 */
const MAX_COST_CHANGES = 2_000;
/** Most points a cost plot draws of each kind (best-ranked, frontier). */
export const MAX_PLOT_POINTS = 500;
/** Largest neighbourhood `getAround` serves on each side. */
export const MAX_AROUND = 50;

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

function toRecord(row: ResultRow): ResultRecord {
  return {
    submissionId: row.submission_id,
    agentId: row.agent_id,
    score: row.score,
    unrounded: row.unrounded,
    iteration: row.iteration,
    enteredAt: row.entered_at,
    submittedAt: row.submitted_at,
    scoredAt: row.scored_at,
  };
}

/** The per-challenge leaderboard Durable Object (binding `LEADERBOARD`, named by challenge id). */
export class ChallengeLeaderboard extends DurableObject<Env> implements BoardRpc {
  #sql: SqlStorage;
  #version = 0;
  #challengeId: string | null = null;
  #mode: RankingMode | null = null;
  /** The challenge's opening (epoch ms), which time to final counts from; null until told. */
  #openedAt: number | null = null;
  #index: RankingIndex | null = null;
  /** The standings' 95 % intervals, for rank ranges: a lazy cache like #index. */
  #ranges: RankRanges | null = null;
  /** Compiled pairing profiles by submission id (bounded; profiles never change once stored). */
  #pairings = new Map<string, CompiledPairing | null>();
  /**
   * What the paired window reads of each agent's ranking submission: its point and compiled
   * profile (bounded; an agent's is dropped when its standing changes, all on a rebuild).
   */
  #windowRows = new Map<string, { point: number; profile: CompiledPairing | null }>();
  /** Each agent's rank certainty at `#certaintyVersion` (cleared when the board changes). */
  #certaintyMemo = new Map<string, RankCertainty>();
  #certaintyVersion = -1;
  /**
   * The board in cost order under one price revision (built on a cost read) as of `version`;
   * the agents whose standing changed since wait in #costChanged for the next cost read.
   */
  #costOrder: { version: number; revision: number; order: CostOrder } | null = null;
  #costChanged = new Set<string>();
  /** The last price table compiled, by revision. */
  #prices: CompiledPrices | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    // Schema and the three meta values only: cheap at any board size. The index is built on
    // the first call that needs it (#board), so a wake for getVersion costs nothing more.
    void ctx.blockConcurrencyWhile(() => {
      this.#sql.exec(SCHEMA);
      this.#version = Number(this.#meta("version") ?? "0");
      this.#challengeId = this.#meta("challenge_id");
      const mode = this.#meta("ranking_mode");
      this.#mode = mode === "latest" || mode === "best" ? mode : null;
      const openedAt = this.#meta("opened_at");
      this.#openedAt = openedAt === null ? null : Number(openedAt);
      return Promise.resolve();
    });
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  // ─── RPC: writes ───

  /**
   * Records one scored submission and updates the agent's standing. A duplicate submission id
   * changes nothing (`applied: false`); an older iteration arriving after a newer one under
   * `latest` joins the history (trajectory) but leaves the ranking untouched (`stale: true`).
   * Refuses (as a value, changing nothing) malformed input and a challenge id or ranking mode
   * that contradicts the recorded one.
   */
  recordResult(input: unknown): BoardResult<RecordResultOutcome> {
    const parsed = RecordResultInputSchema.safeParse(input);
    if (!parsed.success) {
      return { ok: false, error: { reason: "invalid-input", detail: parsed.error.message } };
    }
    const r = parsed.data;
    const refused = this.#claim(r.challengeId, r.rankingMode, r.openedAt);
    if (refused) return { ok: false, error: refused };
    const board = this.#board();
    const before = board.get(r.agentId);
    const previous = board.rankOf(r.agentId);
    const ranges = this.#rankRanges();
    const standing = this.ctx.storage.transactionSync(() => {
      if (this.#insertResult(r, { ifNew: true }) === 0) return null;
      if (r.interval) this.#insertInterval(r.submissionId, r.interval);
      if (r.pairing) this.#insertPairing(r.submissionId, r.pairing);
      if (r.usage) this.#insertUsage(r.submissionId, r.usage);
      const recomputed = this.#recomputeAgent(r.agentId);
      this.#bumpVersion();
      return recomputed;
    });
    if (standing === null) {
      const owner = this.#sql
        .exec<{ agent_id: string }>(
          "SELECT agent_id FROM results WHERE submission_id = ?",
          r.submissionId,
        )
        .one().agent_id;
      const rank = board.rankOf(owner);
      const outcome = { applied: false, stale: false, rank, previousRank: rank };
      const overtaken = this.#storedOvertaken(r.submissionId);
      return { ok: true, value: { ...outcome, overtaken, version: this.#version } };
    }
    this.#standingChanged(r.agentId);
    // Under `latest`, a result that is not the agent's ranking submission is an older
    // iteration that arrived late: it joined the history, the ranking key is unchanged.
    const stale = r.rankingMode === "latest" && standing.submissionId !== r.submissionId;
    let moved: { rank: number; previousRank: number | null };
    try {
      moved = sameRankingKey(before, standing)
        ? { rank: previous!, previousRank: previous }
        : board.upsert(standing);
    } catch (err) {
      this.#index = null; // storage committed: rebuild the cache from it on the next call
      this.#ranges = null;
      throw err;
    }
    ranges.set(r.agentId, this.#intervalOf(standing.submissionId, standing.unrounded));
    const { rank, previousRank } = moved;
    const overtaken = this.#passedOver(r.agentId, rank, previousRank ?? board.size);
    // No await since the insert, so this commits with it (write coalescing). Replaced, not
    // kept: after a rebuild dropped the result, this application is the one to repeat.
    if (overtaken.length > 0)
      this.#sql.exec(
        `INSERT INTO overtaken (submission_id, agents) VALUES (?, ?)
         ON CONFLICT (submission_id) DO UPDATE SET agents = excluded.agents`,
        r.submissionId,
        JSON.stringify(overtaken),
      );
    else this.#sql.exec("DELETE FROM overtaken WHERE submission_id = ?", r.submissionId);
    this.#broadcast([
      { agentId: r.agentId, rank, previousRank, score: standing.score },
      ...overtaken.map((o) => ({
        agentId: o.agentId,
        rank: o.rank,
        previousRank: o.previousRank,
        score: board.get(o.agentId)?.score ?? 0,
      })),
    ]);
    return {
      ok: true,
      value: { applied: true, stale, rank, previousRank, overtaken, version: this.#version },
    };
  }

  /**
   * Records a scored baseline as a reference line: stored apart from the results and standings,
   * so it takes no rank, moves nobody and is never overtaken or overtaking. The latest score of
   * a baseline replaces its earlier one; a repeat changes nothing.
   */
  recordBaseline(input: unknown): BoardResult<{ applied: boolean; version: number }> {
    const parsed = RecordBaselineInputSchema.safeParse(input);
    if (!parsed.success) {
      return { ok: false, error: { reason: "invalid-input", detail: parsed.error.message } };
    }
    const { challengeId, ...b } = parsed.data;
    const known = this.#challengeId;
    if (known !== null && known !== challengeId) {
      return { ok: false, error: { reason: "wrong-challenge", expected: known, got: challengeId } };
    }
    const applied = this.ctx.storage.transactionSync(() => {
      const same = this.#sql
        .exec(
          "SELECT 1 FROM baselines WHERE agent_id = ? AND submission_id = ? AND score = ? AND unrounded = ?",
          b.agentId,
          b.submissionId,
          b.score,
          b.unrounded,
        )
        .toArray();
      if (same.length > 0) return false;
      this.#writeBaseline(b);
      this.#bumpVersion();
      return true;
    });
    if (applied) this.#broadcast([]);
    return { ok: true, value: { applied, version: this.#version } };
  }

  /**
   * Replaces the whole board with `rows` (the challenge's result history from D1, after a
   * rescore or a loss). Atomic: on a malformed row nothing changes (`invalid-input`).
   */
  rebuild(input: unknown): BoardResult<{ agents: number; results: number; version: number }> {
    const parsed = RebuildInputSchema.safeParse(input);
    if (!parsed.success) {
      return { ok: false, error: { reason: "invalid-input", detail: parsed.error.message } };
    }
    const { challengeId, rankingMode, openedAt, rows } = parsed.data;
    const byAgent = new Map<string, RebuildRow[]>();
    const seen = new Set<string>();
    for (const row of rows) {
      if (seen.has(row.submissionId)) continue;
      seen.add(row.submissionId);
      const list = byAgent.get(row.agentId) ?? [];
      list.push(row);
      byAgent.set(row.agentId, list);
    }
    const standings: AgentStanding[] = [];
    for (const list of byAgent.values())
      standings.push(computeAgentStanding(list, rankingMode, openedAt)!);
    const index = buildRankingIndex(standings);
    this.ctx.storage.transactionSync(() => {
      this.#sql.exec(
        `DELETE FROM results; DELETE FROM standings; DELETE FROM score_intervals;
         DELETE FROM pairing_profiles; DELETE FROM baselines; DELETE FROM run_usage;`,
      );
      for (const b of parsed.data.baselines) this.#writeBaseline(b);
      for (const list of byAgent.values())
        for (const r of list) {
          this.#insertResult(r);
          if (r.interval) this.#insertInterval(r.submissionId, r.interval);
          if (r.pairing) this.#insertPairing(r.submissionId, r.pairing);
          if (r.usage) this.#insertUsage(r.submissionId, r.usage);
        }
      for (const s of standings) this.#writeStanding(s);
      this.#setMeta("challenge_id", challengeId);
      this.#setMeta("ranking_mode", rankingMode);
      this.#setMeta("opened_at", String(openedAt));
      this.#bumpVersion();
    });
    this.#challengeId = challengeId;
    this.#mode = rankingMode;
    this.#openedAt = openedAt;
    this.#index = index;
    this.#ranges = null;
    this.#pairings.clear();
    this.#windowRows.clear();
    this.#costOrder = null;
    this.#broadcast([]);
    return {
      ok: true,
      value: { agents: standings.length, results: seen.size, version: this.#version },
    };
  }

  // ─── RPC: reads ───

  /**
   * A page of the board (limit clamped to 1..100) in official order, or by cost (`sort: "cost"`),
   * optionally only entries proven to cost at most `maxCostUsd`; every entry priced with
   * `prices`. `bad-cursor` for a garbage cursor, `bad-request` for a malformed request.
   */
  getPage(request: unknown): BoardResult<BoardPage, PageError> {
    const parsed = PageRequestSchema.safeParse(request);
    if (!parsed.success)
      return { ok: false, error: { reason: "bad-request", detail: parsed.error.message } };
    const { sort, maxCostUsd } = parsed.data;
    const limit = clampInt(parsed.data.limit, 1, MAX_PAGE_LIMIT);
    const prices = this.#compiled(parsed.data.prices ?? null);
    if (!prices.ok) return prices;
    const board = this.#board();
    if (sort === "rank" && (maxCostUsd === undefined || maxCostUsd === null)) {
      const page = board.page({ limit, after: parsed.data.cursor ?? null });
      if (!page.ok) {
        return { ok: false, error: { reason: "bad-cursor", detail: page.error.detail } };
      }
      const entries = this.#toBoardEntries(page.value.entries, prices.value);
      return {
        ok: true,
        value: { entries, next: page.value.next, total: board.size, version: this.#version },
      };
    }
    const max = maxCostUsd === undefined || maxCostUsd === null ? null : parseUsdAmount(maxCostUsd);
    if (max === null && maxCostUsd)
      return { ok: false, error: { reason: "bad-request", detail: "maxCostUsd is not a decimal" } };
    const page = this.#costOrderOf(prices.value).page({
      sort,
      limit,
      after: parsed.data.cursor ?? null,
      maxPicoUsd: max,
    });
    if (!page.ok) return { ok: false, error: { reason: "bad-cursor", detail: page.error.detail } };
    const ranked = page.value.entries.map((e) => ({
      ...e.standing,
      rank: board.rankOf(e.standing.agentId) ?? 0,
    }));
    return {
      ok: true,
      value: {
        entries: this.#toBoardEntries(ranked, prices.value),
        next: page.value.next,
        total: page.value.total,
        version: this.#version,
      },
    };
  }

  /**
   * The board's score against cost: the best-ranked priced entries and the Pareto frontier
   * (each at most MAX_PLOT_POINTS), priced with `prices`.
   */
  getCostPlot(prices: unknown): BoardResult<CostPlot, PageError> {
    const parsed = PageRequestSchema.shape.prices.safeParse(prices);
    if (!parsed.success)
      return { ok: false, error: { reason: "bad-request", detail: parsed.error.message } };
    const compiled = this.#compiled(parsed.data ?? null);
    if (!compiled.ok) return compiled;
    const board = this.#board();
    const order = this.#costOrderOf(compiled.value);
    const frontier = order.frontier().slice(0, MAX_PLOT_POINTS);
    const onFrontier = new Set(frontier);
    const chosen = new Map<string, { standing: Standing; picoUsd: bigint | null }>();
    for (const e of order.pricedByRank(MAX_PLOT_POINTS)) chosen.set(e.standing.agentId, e);
    for (const id of frontier) {
      const standing = board.get(id);
      if (standing && !chosen.has(id)) chosen.set(id, { standing, picoUsd: null });
    }
    const ids = [...chosen.keys()];
    const rows = this.#usageOf(ids);
    const points = ids.flatMap((agentId) => {
      const row = rows.get(agentId);
      const standing = chosen.get(agentId)!.standing;
      const cost = priceTokens(row?.usage?.tokens?.models ?? null, compiled.value).picoUsd;
      if (!row || cost === null) return [];
      return [
        {
          agentId,
          rank: board.rankOf(agentId) ?? 0,
          score: standing.score,
          unrounded: row.unrounded,
          usd: computeCost(row.usage, standing.iterations, compiled.value).usd ?? "",
          onFrontier: onFrontier.has(agentId),
        },
      ];
    });
    points.sort((a, b) => a.rank - b.rank);
    return {
      ok: true,
      value: {
        version: this.#version,
        prices: compiled.value
          ? { revision: compiled.value.revision, asOf: compiled.value.asOf }
          : null,
        total: order.size,
        unknownCost: order.unknown,
        points,
        frontier,
      },
    };
  }

  /** One agent's standing in full, or null when it has none. */
  getStanding(agentId: string, prices: PricesInput = null): StandingView | null {
    const board = this.#board();
    const rank = board.rankOf(agentId);
    if (rank === null) return null;
    const row = this.#sql
      .exec<StandingRow>("SELECT * FROM standings WHERE agent_id = ?", agentId)
      .toArray()[0];
    if (!row) return null;
    return {
      agentId,
      rank,
      total: board.size,
      score: row.score,
      unrounded: row.unrounded,
      iterations: row.iterations,
      timeToFinalMs: row.time_to_final_ms,
      submittedAt: row.submitted_at,
      submissionId: row.submission_id,
      band: resolveBand(row.score).key,
      trajectory: JSON.parse(row.trajectory) as TrajectoryPoint[],
      trajectoryClass: row.trajectory_class as TrajectoryClass,
      ...this.#certainties([{ agentId, rank }])[0]!,
      cost: this.#costsOf(
        [{ agentId, iterations: row.iterations }],
        this.#compiledOrNull(prices),
      )[0]!,
      version: this.#version,
    };
  }

  /** The agent with up to `k` (≤ 50) entries above and below it, or null when absent. */
  getAround(agentId: string, k: number, prices: PricesInput = null): BoardEntry[] | null {
    const around = this.#board().around(agentId, clampInt(k, 0, MAX_AROUND));
    if (!around) return null;
    return this.#toBoardEntries(around, this.#compiledOrNull(prices));
  }

  /** Ranked standings as board entries: each with its band and its trajectory's class. */
  #toBoardEntries(ranked: readonly RankedStanding[], prices: CompiledPrices | null): BoardEntry[] {
    const classes = this.#trajectoryClasses(ranked.map((e) => e.agentId));
    const certainty = this.#clusteredCertainties(ranked);
    const costs = this.#costsOf(ranked, prices);
    return ranked.map((e, i) => ({
      rank: e.rank,
      agentId: e.agentId,
      score: e.score,
      iterations: e.iterations,
      timeToFinalMs: e.timeToFinalMs,
      submittedAt: e.submittedAt,
      band: resolveBand(e.score).key,
      trajectoryClass: classes.get(e.agentId) ?? "one-shot",
      ...certainty[i]!,
      cost: costs[i]!,
    }));
  }

  /**
   * Certainties of entries whose ranks need not be consecutive (a page by cost): computed per
   * cluster of nearby ranks, so far-apart entries never make one huge paired window.
   */
  #clusteredCertainties(ranked: readonly RankedStanding[]): RankCertainty[] {
    const order = ranked.map((e, i) => i).sort((a, b) => ranked[a]!.rank - ranked[b]!.rank);
    const out: RankCertainty[] = new Array<RankCertainty>(ranked.length);
    for (let i = 0; i < order.length;) {
      let j = i + 1;
      while (
        j < order.length &&
        ranked[order[j]!]!.rank - ranked[order[j - 1]!]!.rank <= PAIRED_WINDOW
      )
        j++;
      const cluster = order.slice(i, j);
      const got = this.#certainties(cluster.map((k) => ranked[k]!));
      cluster.forEach((k, n) => (out[k] = got[n]!));
      i = j;
    }
    return out;
  }

  /** Each entry's cost: its ranking submission's stored usage, priced (one query). */
  #costsOf(
    entries: readonly { agentId: string; iterations: number }[],
    prices: CompiledPrices | null,
  ): CostBreakdown[] {
    const rows = this.#usageOf(entries.map((e) => e.agentId));
    return entries.map((e) =>
      computeCost(rows.get(e.agentId)?.usage ?? null, e.iterations, prices),
    );
  }

  /** The stored usage and unrounded score of each agent's ranking submission (one query). */
  #usageOf(
    agentIds: readonly string[],
  ): Map<string, { usage: UsageLike | null; unrounded: string }> {
    if (agentIds.length === 0) return new Map();
    const rows = this.#sql
      .exec<{ agent_id: string; unrounded: string; usage: string | null }>(
        `SELECT s.agent_id, s.unrounded, u.usage FROM standings s
         LEFT JOIN run_usage u ON u.submission_id = s.submission_id
         WHERE s.agent_id IN (SELECT value FROM json_each(?))`,
        JSON.stringify(agentIds),
      )
      .toArray();
    return new Map(
      rows.map((r) => [
        r.agent_id,
        // Checked against RunUsageSchema when recorded.
        { usage: r.usage ? (JSON.parse(r.usage) as UsageLike) : null, unrounded: r.unrounded },
      ]),
    );
  }

  /**
   * The board in cost order under `prices`: built from every standing once per price revision
   * (O(n log n)); a later board version re-reads and re-prices only the agents whose standing
   * changed since (#costChanged) and moves them in the order, then it is served from memory.
   */
  #costOrderOf(prices: CompiledPrices | null): CostOrder {
    const revision = prices?.revision ?? 0;
    const held = this.#costOrder;
    if (held?.revision === revision) {
      if (held.version !== this.#version) {
        const changed = [...this.#costChanged];
        try {
          held.order.update(changed, this.#costEntries(prices, changed));
        } catch (err) {
          this.#costOrder = null; // half applied: the next cost read builds afresh
          throw err;
        }
        this.#costChanged.clear();
        held.version = this.#version;
      }
      return held.order;
    }
    const order = CostOrder.build(this.#costEntries(prices, null));
    this.#costChanged.clear();
    this.#costOrder = { version: this.#version, revision, order };
    return order;
  }

  /**
   * Forgets what the paired window held of the agent, and notes the change for the held cost
   * order (past MAX_COST_CHANGES notes the order is dropped).
   */
  #standingChanged(agentId: string): void {
    this.#windowRows.delete(agentId);
    if (this.#costOrder === null) return;
    this.#costChanged.add(agentId);
    if (this.#costChanged.size > MAX_COST_CHANGES) {
      this.#costOrder = null;
      this.#costChanged.clear();
    }
  }

  /** The cost entries of the given agents' standings (null: every standing), priced. */
  #costEntries(prices: CompiledPrices | null, agentIds: readonly string[] | null): CostEntry[] {
    if (agentIds?.length === 0) return [];
    const rows = this.#sql
      .exec<{
        agent_id: string;
        score: number;
        iterations: number;
        time_to_final_ms: number;
        submitted_at: number;
        unrounded: string;
        usage: string | null;
      }>(
        `SELECT s.agent_id, s.score, s.iterations, s.time_to_final_ms, s.submitted_at, s.unrounded,
           u.usage FROM standings s LEFT JOIN run_usage u ON u.submission_id = s.submission_id` +
          (agentIds ? " WHERE s.agent_id IN (SELECT value FROM json_each(?))" : ""),
        ...(agentIds ? [JSON.stringify(agentIds)] : []),
      )
      .toArray();
    return rows.map((r) => {
      // Checked against RunUsageSchema when recorded.
      const usage = r.usage ? (JSON.parse(r.usage) as UsageLike) : null;
      return {
        standing: {
          agentId: r.agent_id,
          score: r.score,
          iterations: r.iterations,
          timeToFinalMs: r.time_to_final_ms,
          submittedAt: r.submitted_at,
        },
        picoUsd: priceTokens(usage?.tokens?.models ?? null, prices).picoUsd,
        unrounded: pointOf(r.unrounded).low,
      };
    });
  }

  /** Compiles a price table (memoized by revision); a price that does not parse is refused. */
  #compiled(table: PricesInput): BoardResult<CompiledPrices | null, PageError> {
    if (table === null) return { ok: true, value: null };
    if (this.#prices?.revision === table.revision && this.#prices.asOf === table.asOf)
      return { ok: true, value: this.#prices };
    try {
      this.#prices = compilePrices(table);
      return { ok: true, value: this.#prices };
    } catch (err) {
      return { ok: false, error: { reason: "bad-request", detail: String(err) } };
    }
  }

  #compiledOrNull(table: unknown): CompiledPrices | null {
    const parsed = PageRequestSchema.shape.prices.safeParse(table);
    if (!parsed.success) return null;
    const compiled = this.#compiled(parsed.data ?? null);
    return compiled.ok ? compiled.value : null;
  }

  /**
   * Each entry's rank range (intervals, refined by paired comparisons within PAIRED_WINDOW
   * ranks), tie mark and interval. `ranked` holds consecutive ranks (a page, a neighbourhood).
   * Memoized per board version: a second read of the same version compares nothing.
   */
  #certainties(ranked: readonly { agentId: string; rank: number }[]): RankCertainty[] {
    if (this.#certaintyVersion !== this.#version) {
      this.#certaintyMemo.clear();
      this.#certaintyVersion = this.#version;
    }
    const ranges = this.#rankRanges();
    const missing = ranked.filter((e) => !this.#certaintyMemo.has(e.agentId));
    if (missing.length > 0) {
      const from = Math.min(...missing.map((e) => e.rank));
      const to = Math.max(...missing.map((e) => e.rank));
      const window = this.#pairedWindow(from - PAIRED_WINDOW, to + PAIRED_WINDOW);
      const first = window.findIndex((e) => e.rank === from);
      const counts = countPaired(ranges, window, first, to - from + 1);
      if (this.#certaintyMemo.size > MAX_PAGE_LIMIT * 50) this.#certaintyMemo.clear();
      for (let i = first; i >= 0 && i <= first + to - from && i < window.length; i++) {
        const e = window[i]!;
        const range = ranges.rangeOf(e.agentId, e.rank, counts[i - first]) ?? {
          best: e.rank,
          worst: e.rank,
        };
        const ends = ranges.get(e.agentId);
        this.#certaintyMemo.set(e.agentId, {
          rankRange: range,
          tied: range.best < range.worst,
          interval: ends ? { low: ends.low, high: ends.high } : { low: 0, high: 0 },
        });
      }
    }
    return ranked.map(
      (e) =>
        this.#certaintyMemo.get(e.agentId) ?? {
          rankRange: { best: e.rank, worst: e.rank },
          tied: false,
          interval: { low: 0, high: 0 },
        },
    );
  }

  /**
   * The entries ranked `fromRank … toRank` (clipped to the board) with their points and
   * compiled pairing profiles, in rank order (one query, for the agents #windowRows lacks).
   */
  #pairedWindow(fromRank: number, toRank: number): PairedEntry[] {
    const start = Math.max(1, fromRank);
    const around = this.#board().slice(start, Math.max(0, toRank - start + 1));
    const held = this.#windowRows;
    if (held.size + around.length > MAX_CACHED_PAIRINGS) held.clear();
    // Only agents not held (new to the window, or changed since) are read: a first read of a
    // version after one result reads one row, not the window's ~140.
    const missing = around.filter((e) => !held.has(e.agentId)).map((e) => e.agentId);
    if (missing.length > 0) {
      const rows = this.#sql
        .exec<{
          agent_id: string;
          submission_id: string;
          unrounded: string;
          profile: string | null;
        }>(
          `SELECT s.agent_id, s.submission_id, s.unrounded, p.profile FROM standings s
           LEFT JOIN pairing_profiles p ON p.submission_id = s.submission_id
           WHERE s.agent_id IN (SELECT value FROM json_each(?))`,
          JSON.stringify(missing),
        )
        .toArray();
      for (const row of rows)
        held.set(row.agent_id, {
          point: pointOf(row.unrounded).low,
          profile: row.profile ? this.#compiledPairing(row.submission_id, row.profile) : null,
        });
    }
    return around.map((e) => {
      const row = held.get(e.agentId);
      return {
        agentId: e.agentId,
        rank: e.rank,
        point: row ? row.point : e.score,
        profile: row ? row.profile : null,
      };
    });
  }

  /**
   * The ranking submission, unrounded score and trajectory of each given agent (at most
   * MAX_PAGE_LIMIT ids, one query): what a leaderboard page draws beside its rows.
   */
  getTrajectories(agentIds: string[]): TrajectoryView[] {
    const ids = Array.isArray(agentIds) ? agentIds.slice(0, MAX_PAGE_LIMIT) : [];
    if (ids.length === 0) return [];
    return this.#sql
      .exec<Pick<StandingRow, "agent_id" | "submission_id" | "unrounded" | "trajectory">>(
        `SELECT agent_id, submission_id, unrounded, trajectory FROM standings
         WHERE agent_id IN (SELECT value FROM json_each(?))`,
        JSON.stringify(ids.map(String)),
      )
      .toArray()
      .map((row) => ({
        agentId: row.agent_id,
        submissionId: row.submission_id,
        unrounded: row.unrounded,
        trajectory: JSON.parse(row.trajectory) as TrajectoryPoint[],
      }));
  }

  /** Number of agents per interpretation band. */
  getBandCounts(): BandCountsView {
    const board = this.#board();
    return { ...board.countByBand(), total: board.size, version: this.#version };
  }

  /**
   * The board's baselines, best first, each placed after every agent whose score is at least
   * its own: a tie goes to the agent, so a baseline never overtakes anyone.
   */
  getBaselines(): BaselineLine[] {
    const rows = this.#sql
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
      .toArray();
    return rows.map((r) => ({
      agentId: r.agent_id,
      submissionId: r.submission_id,
      label: r.label,
      kind: r.kind === "reference" || r.kind === "stub" ? r.kind : "other",
      score: r.score,
      unrounded: r.unrounded,
      afterRank: r.after_rank,
    }));
  }

  /** The board version: +1 on every change; cheap (no index build). */
  getVersion(): number {
    return this.#version;
  }

  // ─── WebSockets (hibernation API) ───

  /** Accepts a WebSocket upgrade on `/ws`; the socket then receives `rank-changed` messages. */
  override fetch(request: Request): Response {
    const url = new URL(request.url);
    if (url.pathname !== "/ws") return new Response("not found", { status: 404 });
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Subscribers only listen; anything but the auto-answered "ping" is ignored. */
  override webSocketMessage(): void {}

  /** Completes the close handshake. */
  override webSocketClose(ws: WebSocket, code: number, reason: string): void {
    try {
      ws.close(code === 1005 ? 1000 : code, reason);
    } catch {
      // Already closed: nothing to complete.
    }
  }

  // ─── private: everything but the RPC methods and the runtime's handlers ───

  #meta(key: string): string | null {
    const row = this.#sql
      .exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key)
      .toArray()[0];
    return row ? row.value : null;
  }

  #setMeta(key: string, value: string): void {
    this.#sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
  }

  // The first result names the challenge, its mode and its opening; a contradiction is a caller
  // bug (a mode change needs a rebuild). A board recorded before it knew the opening (time to
  // final then counted from each agent's entry) learns it here and recomputes every standing.
  #claim(challengeId: string, mode: RankingMode, openedAt: number): BoardWriteError | null {
    if (this.#challengeId !== null && this.#challengeId !== challengeId) {
      return { reason: "wrong-challenge", expected: this.#challengeId, got: challengeId };
    }
    if (this.#mode !== null && this.#mode !== mode) {
      return { reason: "wrong-mode", expected: this.#mode, got: mode };
    }
    if (this.#openedAt !== null && this.#openedAt !== openedAt) {
      return { reason: "wrong-opening", expected: this.#openedAt, got: openedAt };
    }
    if (this.#openedAt === null) {
      this.#setMeta("opened_at", String(openedAt));
      this.#openedAt = openedAt;
      this.#recomputeAll();
    }
    if (this.#challengeId === null) {
      this.#setMeta("challenge_id", challengeId);
      this.#challengeId = challengeId;
    }
    if (this.#mode === null) {
      this.#setMeta("ranking_mode", mode);
      this.#mode = mode;
    }
    return null;
  }

  #board(): RankingIndex {
    // Built lazily after a wake (never at module load or in the constructor).
    if (this.#index === null) {
      // Rows come in board order through standings_board, so the build skips its sort.
      const rows = this.#sql
        .exec<{
          agent_id: string;
          score: number;
          iterations: number;
          time_to_final_ms: number;
          submitted_at: number;
        }>(
          `SELECT agent_id, score, iterations, time_to_final_ms, submitted_at FROM standings
           ORDER BY score DESC, iterations, time_to_final_ms, submitted_at, agent_id`,
        )
        .toArray();
      const standings: Standing[] = rows.map((row) => ({
        agentId: row.agent_id,
        score: row.score,
        iterations: row.iterations,
        timeToFinalMs: row.time_to_final_ms,
        submittedAt: row.submitted_at,
      }));
      this.#index = buildRankingIndex(standings);
    }
    return this.#index;
  }

  #rankRanges(): RankRanges {
    // Built lazily like #board, from each standing's ranking submission and its interval.
    if (this.#ranges === null) {
      const rows = this.#sql
        .exec<{ agent_id: string; unrounded: string; low: number | null; high: number | null }>(
          `SELECT s.agent_id, s.unrounded, i.low, i.high FROM standings s
           LEFT JOIN score_intervals i ON i.submission_id = s.submission_id`,
        )
        .toArray();
      this.#ranges = RankRanges.build(
        rows.map((row) => [
          row.agent_id,
          row.low !== null && row.high !== null
            ? { low: row.low, high: row.high }
            : pointOf(row.unrounded),
        ]),
      );
    }
    return this.#ranges;
  }

  /** The stored interval of a submission, or its score as a point when it has none. */
  #intervalOf(submissionId: string, unrounded: string): IntervalEnds {
    const row = this.#sql
      .exec<{ low: number; high: number }>(
        "SELECT low, high FROM score_intervals WHERE submission_id = ?",
        submissionId,
      )
      .toArray()[0];
    return row ? { low: row.low, high: row.high } : pointOf(unrounded);
  }

  #compiledPairing(submissionId: string, text: string): CompiledPairing | null {
    let compiled = this.#pairings.get(submissionId);
    if (compiled === undefined) {
      if (this.#pairings.size >= MAX_CACHED_PAIRINGS) this.#pairings.clear();
      // Checked against PairingProfileSchema when recorded.
      compiled = compilePairing(JSON.parse(text) as PairingProfile);
      this.#pairings.set(submissionId, compiled);
    }
    return compiled;
  }

  #insertPairing(submissionId: string, profile: PairingProfile): void {
    this.#sql.exec(
      `INSERT INTO pairing_profiles (submission_id, profile) VALUES (?, ?)
       ON CONFLICT (submission_id) DO NOTHING`,
      submissionId,
      JSON.stringify(profile),
    );
  }

  #insertUsage(submissionId: string, usage: UsageLike): void {
    this.#sql.exec(
      `INSERT INTO run_usage (submission_id, usage) VALUES (?, ?)
       ON CONFLICT (submission_id) DO NOTHING`,
      submissionId,
      JSON.stringify(usage),
    );
  }

  #insertInterval(submissionId: string, interval: IntervalEnds): void {
    this.#sql.exec(
      `INSERT INTO score_intervals (submission_id, low, high) VALUES (?, ?, ?)
       ON CONFLICT (submission_id) DO NOTHING`,
      submissionId,
      interval.low,
      interval.high,
    );
  }

  // Every standing afresh from the results (once, when the board learns its opening).
  #recomputeAll(): void {
    const agents = this.#sql
      .exec<{ agent_id: string }>("SELECT DISTINCT agent_id FROM results")
      .toArray();
    if (agents.length === 0) return;
    this.ctx.storage.transactionSync(() => {
      for (const { agent_id } of agents) this.#recomputeAgent(agent_id);
      this.#bumpVersion();
    });
    this.#index = null;
    this.#ranges = null;
    this.#windowRows.clear();
    this.#costOrder = null;
    this.#costChanged.clear();
  }

  #recomputeAgent(agentId: string): AgentStanding {
    const history = this.#sql
      .exec<ResultRow>("SELECT * FROM results WHERE agent_id = ?", agentId)
      .toArray()
      .map(toRecord);
    const standing = computeAgentStanding(history, this.#mode ?? "latest", this.#openedAt ?? 0);
    if (!standing) throw new Error(`no results for agent ${agentId} after recording one`);
    this.#writeStanding(standing);
    return standing;
  }

  /** Inserts one result (with `ifNew`, not over a recorded one); answers the rows written. */
  #insertResult(r: ResultRecord, { ifNew = false } = {}): number {
    return this.#sql.exec(
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
  }

  #writeStanding(s: AgentStanding): void {
    this.#sql.exec(
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

  // The agents now directly below `agentId` that it jumped over: their old ranks lay in
  // [rank, previousRank), so each moved down by one. Bounded by MAX_OVERTAKEN.
  #passedOver(agentId: string, rank: number, previousRank: number): Overtaken[] {
    const passed = Math.min(previousRank - rank, MAX_OVERTAKEN);
    if (passed <= 0) return [];
    const around = this.#board().around(agentId, passed) ?? [];
    return around
      .filter((e) => e.rank > rank && e.rank <= rank + passed)
      .map((e) => ({ agentId: e.agentId, previousRank: e.rank - 1, rank: e.rank }));
  }

  // What an applied result reported; [] when it passed nobody (or predates this table). A repeated
  // call answers it, so a caller retrying after a partial failure re-sends what the first reported.
  #storedOvertaken(submissionId: string): Overtaken[] {
    const row = this.#sql
      .exec<{ agents: string }>(
        "SELECT agents FROM overtaken WHERE submission_id = ?",
        submissionId,
      )
      .toArray()[0];
    return row ? (JSON.parse(row.agents) as Overtaken[]) : [];
  }

  #trajectoryClasses(agentIds: string[]): Map<string, TrajectoryClass> {
    if (agentIds.length === 0) return new Map();
    const rows = this.#sql
      .exec<{ agent_id: string; trajectory_class: string }>(
        `SELECT agent_id, trajectory_class FROM standings
         WHERE agent_id IN (SELECT value FROM json_each(?))`,
        JSON.stringify(agentIds),
      )
      .toArray();
    return new Map(rows.map((r) => [r.agent_id, r.trajectory_class as TrajectoryClass]));
  }

  #writeBaseline(b: BaselineInput): void {
    this.#sql.exec(
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

  #bumpVersion(): void {
    this.#version += 1;
    this.#setMeta("version", String(this.#version));
  }

  #broadcast(changes: RankChangedMessage["changes"]): void {
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0) return;
    const message: RankChangedMessage = { type: "rank-changed", version: this.#version, changes };
    const text = JSON.stringify(message);
    for (const ws of sockets) {
      try {
        ws.send(text);
      } catch {
        // A socket closing meanwhile: its close handler cleans up.
      }
    }
  }
}

/** A score without a stored interval counts as a point ("82.075…" → 82.075). */
function pointOf(unrounded: string): IntervalEnds {
  const v = Number(unrounded.replace("…", ""));
  return { low: v, high: v };
}

function clampInt(value: number, min: number, max: number): number {
  const n = Number.isFinite(value) ? Math.trunc(value) : min;
  return Math.min(max, Math.max(min, n));
}
