/**
 * @module leaderboard/leaderboard-object
 * `ChallengeLeaderboard`: one Durable Object per challenge, the ranking authority; every SQL
 * statement it runs is in `board/sql.ts`. Invariants: SQLite is the truth, the `@bouts/ranking`
 * index a lazy cache of `standings` updated in the same synchronous step; no mutating RPC awaits
 * between its reads and writes (the input gate serializes them; a standing depends only on its
 * agent's history, so every order gives the same board); recording is idempotent by submission
 * id; `version` grows by one on every change.
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
  countPaired,
  PAIRED_WINDOW,
  RankRanges,
  type PairedEntry,
  sameRankingKey,
  type AgentStanding,
  type RankedStanding,
  type RankingIndex,
  type RankingMode,
  type Standing,
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
  type BaselineLine,
  type BandCountsView,
  type BoardEntry,
  type BoardResult,
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
import * as boardSql from "./board/sql.ts";

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

/** The per-challenge leaderboard Durable Object (binding `LEADERBOARD`, named by challenge id). */
export class ChallengeLeaderboard extends DurableObject<Env> {
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
      boardSql.createSchema(this.#sql);
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
      if (!boardSql.insertResult(this.#sql, r, { ifNew: true })) return null;
      const recomputed = this.#recomputeAgent(r.agentId);
      this.#bumpVersion();
      return recomputed;
    });
    if (standing === null) {
      const rank = board.rankOf(boardSql.findResultOwner(this.#sql, r.submissionId));
      const outcome = { applied: false, stale: false, rank, previousRank: rank };
      const overtaken = boardSql.readOvertaken(this.#sql, r.submissionId);
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
    ranges.set(
      r.agentId,
      boardSql.findInterval(this.#sql, standing.submissionId, standing.unrounded),
    );
    const { rank, previousRank } = moved;
    const overtaken = this.#passedOver(r.agentId, rank, previousRank ?? board.size);
    // No await since the insert, so this commits with it (write coalescing).
    boardSql.writeOvertaken(this.#sql, r.submissionId, overtaken);
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
      if (boardSql.hasBaseline(this.#sql, b)) return false;
      boardSql.writeBaseline(this.#sql, b);
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
      boardSql.clearBoard(this.#sql);
      for (const b of parsed.data.baselines) boardSql.writeBaseline(this.#sql, b);
      for (const list of byAgent.values())
        for (const r of list) boardSql.insertResult(this.#sql, r);
      for (const s of standings) boardSql.writeStanding(this.#sql, s);
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
    const rows = boardSql.listUsage(this.#sql, ids);
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
    const standing = boardSql.findStanding(this.#sql, agentId);
    if (!standing) return null;
    const { iterations, score } = standing;
    return {
      agentId,
      rank,
      total: board.size,
      score,
      unrounded: standing.unrounded,
      iterations,
      timeToFinalMs: standing.timeToFinalMs,
      submittedAt: standing.submittedAt,
      submissionId: standing.submissionId,
      band: resolveBand(score).key,
      trajectory: standing.trajectory,
      trajectoryClass: standing.trajectoryClass,
      ...this.#certainties([{ agentId, rank }])[0]!,
      cost: this.#costsOf([{ agentId, iterations }], this.#compiledOrNull(prices))[0]!,
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
    const rows = boardSql.listUsage(
      this.#sql,
      entries.map((e) => e.agentId),
    );
    return entries.map((e) =>
      computeCost(rows.get(e.agentId)?.usage ?? null, e.iterations, prices),
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
    return boardSql.listStandingUsage(this.#sql, agentIds).map((r) => ({
      standing: r.standing,
      picoUsd: priceTokens(r.usage?.tokens?.models ?? null, prices).picoUsd,
      unrounded: boardSql.pointOf(r.unrounded).low,
    }));
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
    if (missing.length > 0)
      for (const row of boardSql.listWindowRows(this.#sql, missing))
        held.set(row.agentId, {
          point: boardSql.pointOf(row.unrounded).low,
          profile: row.profile ? this.#compiledPairing(row.submissionId, row.profile) : null,
        });
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
    return ids.length === 0 ? [] : boardSql.listTrajectories(this.#sql, ids);
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
    return boardSql.listBaselines(this.#sql);
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
    return boardSql.readMeta(this.#sql, key);
  }

  #setMeta(key: string, value: string): void {
    boardSql.writeMeta(this.#sql, key, value);
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
      this.#index = buildRankingIndex(boardSql.listStandingsInBoardOrder(this.#sql));
    }
    return this.#index;
  }

  #rankRanges(): RankRanges {
    // Built lazily like #board, from each standing's ranking submission and its interval.
    if (this.#ranges === null) {
      this.#ranges = RankRanges.build(boardSql.listStandingIntervals(this.#sql));
    }
    return this.#ranges;
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

  // Every standing afresh from the results (once, when the board learns its opening).
  #recomputeAll(): void {
    const agents = boardSql.listResultAgents(this.#sql);
    if (agents.length === 0) return;
    this.ctx.storage.transactionSync(() => {
      for (const agentId of agents) this.#recomputeAgent(agentId);
      this.#bumpVersion();
    });
    this.#index = null;
    this.#ranges = null;
    this.#windowRows.clear();
    this.#costOrder = null;
    this.#costChanged.clear();
  }

  #recomputeAgent(agentId: string): AgentStanding {
    const history = boardSql.listResults(this.#sql, agentId);
    const standing = computeAgentStanding(history, this.#mode ?? "latest", this.#openedAt ?? 0);
    if (!standing) throw new Error(`no results for agent ${agentId} after recording one`);
    boardSql.writeStanding(this.#sql, standing);
    return standing;
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

  #trajectoryClasses(agentIds: string[]): Map<string, TrajectoryClass> {
    return boardSql.listTrajectoryClasses(this.#sql, agentIds);
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

function clampInt(value: number, min: number, max: number): number {
  const n = Number.isFinite(value) ? Math.trunc(value) : min;
  return Math.min(max, Math.max(min, n));
}
