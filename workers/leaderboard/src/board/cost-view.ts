/**
 * @module leaderboard/board/cost-view
 * The board by cost (docs/leaderboard.md, "Cost"; design.md §28): `CostOrder` over every
 * standing, priced from its stored tokens with the price table a read passes, the Pareto plot
 * drawn from it, and the pricing of a page's entries. Invariants: built once per price revision
 * (O(n log n)) and kept across board versions; a changed standing is re-read, re-priced and moved
 * at the next read, which answers exactly as a fresh build; the official rank is never touched.
 */
import {
  compilePrices,
  computeCost,
  CostOrder,
  priceTokens,
  type CompiledPrices,
  type CostBreakdown,
  type CostEntry,
  type RankingIndex,
  type Standing,
} from "@bouts/ranking";
import {
  PageRequestSchema,
  type BoardResult,
  type CostPlot,
  type PageError,
  type PricesInput,
} from "../rpc.ts";
import { listStandingUsage, listUsage, pointOf } from "./sql.ts";
import type { BoardView, StandingChange } from "./view.ts";

/**
 * Changed standings the held cost order takes at its next read (one pass over the order, then a
 * query row, a binary search and an array move each); past this many the order is dropped and
 * built afresh.
 */
const MAX_COST_CHANGES = 2_000;
/** Most points a cost plot draws of each kind (best-ranked, frontier). */
export const MAX_PLOT_POINTS = 500;

/** The board in cost order under the price table a read passes (null: none in force). */
export class CostOrderView implements BoardView<CompiledPrices | null, CostOrder> {
  readonly #sql: SqlStorage;
  /** The order under one price revision, as of the last read. */
  #held: { revision: number; order: CostOrder } | null = null;
  /** Agents whose standing changed since the last read, for the held order. */
  #changed = new Set<string>();

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  onStandingChanged({ agentId }: StandingChange): void {
    if (this.#held === null) return;
    this.#changed.add(agentId);
    if (this.#changed.size > MAX_COST_CHANGES) this.onRebuild();
  }

  onRebuild(): void {
    this.#held = null;
    this.#changed.clear();
  }

  /**
   * Built from every standing once per price revision; a later read re-prices only the agents
   * whose standing changed since and moves them in the order, then serves it from memory.
   */
  read(prices: CompiledPrices | null): CostOrder {
    const revision = prices?.revision ?? 0;
    const held = this.#held;
    if (held?.revision === revision) {
      if (this.#changed.size > 0) {
        const changed = [...this.#changed];
        try {
          held.order.update(changed, this.#entries(prices, changed));
        } catch (err) {
          this.onRebuild(); // half applied: the next read builds afresh
          throw err;
        }
        this.#changed.clear();
      }
      return held.order;
    }
    const order = CostOrder.build(this.#entries(prices, null));
    this.#changed.clear();
    this.#held = { revision, order };
    return order;
  }

  /** The cost entries of the given agents' standings (null: every standing), priced. */
  #entries(prices: CompiledPrices | null, agentIds: readonly string[] | null): CostEntry[] {
    return listStandingUsage(this.#sql, agentIds).map((r) => ({
      standing: r.standing,
      picoUsd: priceTokens(r.usage?.tokens?.models ?? null, prices).picoUsd,
      unrounded: pointOf(r.unrounded).low,
    }));
  }
}

/** The last price table compiled, by revision: a read's table is compiled once. */
export class PriceTables {
  #compiled: CompiledPrices | null = null;

  /** Compiles a price table (memoized by revision); a price that does not parse is refused. */
  compile(table: PricesInput): BoardResult<CompiledPrices | null, PageError> {
    if (table === null) return { ok: true, value: null };
    if (this.#compiled?.revision === table.revision && this.#compiled.asOf === table.asOf)
      return { ok: true, value: this.#compiled };
    try {
      this.#compiled = compilePrices(table);
      return { ok: true, value: this.#compiled };
    } catch (err) {
      return { ok: false, error: { reason: "bad-request", detail: String(err) } };
    }
  }

  /** Compiles an unchecked table; a malformed one prices nothing (null). */
  compileOrNull(table: unknown): CompiledPrices | null {
    const parsed = PageRequestSchema.shape.prices.safeParse(table);
    if (!parsed.success) return null;
    const compiled = this.compile(parsed.data ?? null);
    return compiled.ok ? compiled.value : null;
  }
}

/** Each entry's cost: its ranking submission's stored usage, priced (one query). */
export function priceEntries(
  sql: SqlStorage,
  entries: readonly { agentId: string; iterations: number }[],
  prices: CompiledPrices | null,
): CostBreakdown[] {
  const rows = listUsage(
    sql,
    entries.map((e) => e.agentId),
  );
  return entries.map((e) => computeCost(rows.get(e.agentId)?.usage ?? null, e.iterations, prices));
}

/**
 * The board's score against cost: the best-ranked priced entries and the Pareto frontier (each
 * at most MAX_PLOT_POINTS), in official order.
 */
export function buildCostPlot(
  sql: SqlStorage,
  board: RankingIndex,
  order: CostOrder,
  prices: CompiledPrices | null,
  version: number,
): CostPlot {
  const frontier = order.frontier().slice(0, MAX_PLOT_POINTS);
  const onFrontier = new Set(frontier);
  const chosen = new Map<string, { standing: Standing; picoUsd: bigint | null }>();
  for (const e of order.pricedByRank(MAX_PLOT_POINTS)) chosen.set(e.standing.agentId, e);
  for (const id of frontier) {
    const standing = board.get(id);
    if (standing && !chosen.has(id)) chosen.set(id, { standing, picoUsd: null });
  }
  const ids = [...chosen.keys()];
  const rows = listUsage(sql, ids);
  const points = ids.flatMap((agentId) => {
    const row = rows.get(agentId);
    const standing = chosen.get(agentId)!.standing;
    const cost = priceTokens(row?.usage?.tokens?.models ?? null, prices).picoUsd;
    if (!row || cost === null) return [];
    return [
      {
        agentId,
        rank: board.rankOf(agentId) ?? 0,
        score: standing.score,
        unrounded: row.unrounded,
        usd: computeCost(row.usage, standing.iterations, prices).usd ?? "",
        onFrontier: onFrontier.has(agentId),
      },
    ];
  });
  points.sort((a, b) => a.rank - b.rank);
  return {
    version,
    prices: prices ? { revision: prices.revision, asOf: prices.asOf } : null,
    total: order.size,
    unknownCost: order.unknown,
    points,
    frontier,
  };
}
