/**
 * @module leaderboard/leaderboard-object
 * `ChallengeLeaderboard`: one Durable Object per challenge, the ranking authority. It is its RPC
 * methods, the transactions they run and the broadcast of each change; its SQL is in
 * `board/sql.ts` and what it derives from storage in the views of `board/`. Invariants: SQLite
 * is the truth, every view a cache of it, told of every committed change through the one list
 * of views in the same synchronous step; no mutating RPC awaits between its reads and writes
 * (the input gate serializes them; a standing depends only on its agent's history, so every
 * order gives the same board); recording is idempotent by submission id; `version` grows by one
 * on every change.
 */
import { DurableObject } from "cloudflare:workers";
import {
  buildRankingIndex,
  computeAgentStanding,
  parseUsdAmount,
  type AgentStanding,
  type CompiledPrices,
  type RankedStanding,
  type RankingMode,
} from "@bouts/ranking";
import { resolveBand } from "@bouts/scoring";
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
  type BoardRpc,
  type BoardWriteError,
  type BoardPage,
  type Overtaken,
  type PageError,
  type RankChangedMessage,
  type RecordResultOutcome,
  type StandingView,
  type TrajectoryView,
} from "./rpc.ts";
import * as boardSql from "./board/sql.ts";
import {
  buildCostPlot,
  createBoardViews,
  priceEntries,
  PriceTables,
  type BoardViewSet,
} from "./board/index.ts";

/** Most agents reported as overtaken by one update (the nearest ones passed over). */
export const MAX_OVERTAKEN = 100;
/** Largest page the object serves. */
export const MAX_PAGE_LIMIT = 100;
/** Largest neighbourhood `getAround` serves on each side. */
export const MAX_AROUND = 50;
/**
 * The key of the object's views, for tests that run inside the object's isolate
 * (`runInDurableObject`): a method keyed by a symbol is not reachable over RPC.
 */
export const BOARD_VIEWS = Symbol.for("bouts.leaderboard.board-views");

/** The per-challenge leaderboard Durable Object (binding `LEADERBOARD`, named by challenge id). */
export class ChallengeLeaderboard extends DurableObject<Env> implements BoardRpc {
  #sql: SqlStorage;
  #version = 0;
  #challengeId: string | null = null;
  #mode: RankingMode | null = null;
  /** The challenge's opening (epoch ms), which time to final counts from; null until told. */
  #openedAt: number | null = null;
  /** What the object derives from storage, each view told of every change through `all`. */
  #views: BoardViewSet;
  #prices = new PriceTables();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#views = createBoardViews(this.#sql);
    // Schema and the three meta values only: cheap at any board size. The views are built by
    // the first read that needs them, so a wake for getVersion costs nothing more.
    void ctx.blockConcurrencyWhile(() => {
      boardSql.createSchema(this.#sql);
      this.#version = Number(boardSql.readMeta(this.#sql, "version") ?? "0");
      this.#challengeId = boardSql.readMeta(this.#sql, "challenge_id");
      const mode = boardSql.readMeta(this.#sql, "ranking_mode");
      this.#mode = mode === "latest" || mode === "best" ? mode : null;
      const openedAt = boardSql.readMeta(this.#sql, "opened_at");
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
    const board = this.#views.ranking.read();
    const previousRank = board.rankOf(r.agentId);
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
    this.#views.all.standingChanged({ agentId: r.agentId, standing });
    // Under `latest`, a result that is not the agent's ranking submission is an older
    // iteration that arrived late: it joined the history, the ranking key is unchanged.
    const stale = r.rankingMode === "latest" && standing.submissionId !== r.submissionId;
    const rank = board.rankOf(r.agentId)!;
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
    // Built before the transaction: a standing the index refuses changes nothing.
    const index = buildRankingIndex(standings);
    this.ctx.storage.transactionSync(() => {
      boardSql.clearBoard(this.#sql);
      for (const b of parsed.data.baselines) boardSql.writeBaseline(this.#sql, b);
      for (const list of byAgent.values())
        for (const r of list) boardSql.insertResult(this.#sql, r);
      for (const s of standings) boardSql.writeStanding(this.#sql, s);
      boardSql.writeMeta(this.#sql, "challenge_id", challengeId);
      boardSql.writeMeta(this.#sql, "ranking_mode", rankingMode);
      boardSql.writeMeta(this.#sql, "opened_at", String(openedAt));
      this.#bumpVersion();
    });
    this.#challengeId = challengeId;
    this.#mode = rankingMode;
    this.#openedAt = openedAt;
    this.#views.all.rebuilt();
    this.#views.ranking.adopt(index);
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
    const prices = this.#prices.compile(parsed.data.prices ?? null);
    if (!prices.ok) return prices;
    const board = this.#views.ranking.read();
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
    const page = this.#views.cost.read(prices.value).page({
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
    const compiled = this.#prices.compile(parsed.data ?? null);
    if (!compiled.ok) return compiled;
    const board = this.#views.ranking.read();
    const order = this.#views.cost.read(compiled.value);
    return {
      ok: true,
      value: buildCostPlot(this.#sql, board, order, compiled.value, this.#version),
    };
  }

  /** One agent's standing in full, or null when it has none. */
  getStanding(agentId: string, prices: PricesInput = null): StandingView | null {
    const board = this.#views.ranking.read();
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
      ...this.#views.certainty.read([{ agentId, rank }])[0]!,
      cost: priceEntries(
        this.#sql,
        [{ agentId, iterations }],
        this.#prices.compileOrNull(prices),
      )[0]!,
      version: this.#version,
    };
  }

  /** The agent with up to `k` (≤ 50) entries above and below it, or null when absent. */
  getAround(agentId: string, k: number, prices: PricesInput = null): BoardEntry[] | null {
    const around = this.#views.ranking.read().around(agentId, clampInt(k, 0, MAX_AROUND));
    if (!around) return null;
    return this.#toBoardEntries(around, this.#prices.compileOrNull(prices));
  }

  /**
   * The ranking submission, unrounded score and trajectory of each given agent (at most
   * MAX_PAGE_LIMIT ids, one query): what a leaderboard page draws beside its rows.
   */
  getTrajectories(agentIds: string[]): TrajectoryView[] {
    const ids = Array.isArray(agentIds) ? agentIds.slice(0, MAX_PAGE_LIMIT) : [];
    return this.#views.trajectories.read(ids);
  }

  /** Number of agents per interpretation band. */
  getBandCounts(): BandCountsView {
    const board = this.#views.ranking.read();
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

  /** The object's views (see BOARD_VIEWS): not an RPC method. */
  [BOARD_VIEWS](): BoardViewSet {
    return this.#views;
  }

  // ─── private: everything but the RPC methods and the runtime's handlers ───

  /** Ranked standings as board entries: each with its band, trajectory class, certainty, cost. */
  #toBoardEntries(ranked: readonly RankedStanding[], prices: CompiledPrices | null): BoardEntry[] {
    const classes = this.#views.trajectories.classesOf(ranked.map((e) => e.agentId));
    const certainty = this.#views.certainty.read(ranked);
    const costs = priceEntries(this.#sql, ranked, prices);
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
      boardSql.writeMeta(this.#sql, "opened_at", String(openedAt));
      this.#openedAt = openedAt;
      this.#recomputeAll();
    }
    if (this.#challengeId === null) {
      boardSql.writeMeta(this.#sql, "challenge_id", challengeId);
      this.#challengeId = challengeId;
    }
    if (this.#mode === null) {
      boardSql.writeMeta(this.#sql, "ranking_mode", mode);
      this.#mode = mode;
    }
    return null;
  }

  // Every standing afresh from the results (once, when the board learns its opening).
  #recomputeAll(): void {
    const agents = boardSql.listResultAgents(this.#sql);
    if (agents.length === 0) return;
    this.ctx.storage.transactionSync(() => {
      for (const agentId of agents) this.#recomputeAgent(agentId);
      this.#bumpVersion();
    });
    this.#views.all.rebuilt();
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
    const around = this.#views.ranking.read().around(agentId, passed) ?? [];
    return around
      .filter((e) => e.rank > rank && e.rank <= rank + passed)
      .map((e) => ({ agentId: e.agentId, previousRank: e.rank - 1, rank: e.rank }));
  }

  #bumpVersion(): void {
    this.#version += 1;
    boardSql.writeMeta(this.#sql, "version", String(this.#version));
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
