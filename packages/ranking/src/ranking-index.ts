/**
 * @module ranking/ranking-index
 * The in-memory ranking index of one challenge board: upsert, remove, rank, keyset pages,
 * neighbours and band counts, each in O(log n) (plus the entries returned). Built empty or in
 * bulk from stored rows; nothing runs at module load. Invalid standings throw a TypeError
 * before anything changes (callers that want a value use validateStanding first); a garbage
 * page cursor is an expected failure and comes back as a Result. Pure: no I/O, no clock.
 */
import { CountedTree, type TreeShape } from "./counted-tree.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import type { Result } from "@bouts/result";
import type { RankingError } from "./errors.ts";
import { SlotStore, measureIds } from "./slot-store.ts";
import { BANDS } from "@bouts/scoring";
import {
  assertStanding,
  compareStandings,
  type BandCounts,
  type RankedStanding,
  type Standing,
} from "./standing.ts";

/** Tree node sizes; the defaults suit a million agents, tests use tiny ones to exercise splits. */
export type RankingIndexOptions = Partial<TreeShape>;

/** What an upsert did to the agent's place: its rank before (null if new) and after. */
export interface UpsertResult {
  readonly previousRank: number | null;
  readonly rank: number;
}

/** Page request: at most `limit` entries, strictly after the entry a previous page's cursor names. */
export interface PageRequest {
  readonly limit: number;
  readonly after?: string | null;
}

/** One page of the board and the cursor of the next page (null when this page reached the end). */
export interface RankingPage {
  readonly entries: RankedStanding[];
  readonly next: string | null;
}

const DEFAULT_SHAPE: TreeShape = { leafCapacity: 128, branchCapacity: 64 };

function resolveShape(options: RankingIndexOptions | undefined): TreeShape {
  const shape = { ...DEFAULT_SHAPE, ...options };
  for (const [name, value] of Object.entries(shape)) {
    if (!Number.isInteger(value) || value < 4 || value > 4096) {
      throw new TypeError(`invalid ranking index option: ${name} must be an integer 4..4096`);
    }
  }
  return shape;
}

function assertCount(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new TypeError(`${name} must be an integer ≥ ${min}, got ${String(value)}`);
  }
}

/** The ranking index; create it with createRankingIndex or buildRankingIndex. */
export class RankingIndex {
  readonly #store: SlotStore;
  readonly #tree: CountedTree;

  /** @internal Use createRankingIndex or buildRankingIndex. */
  constructor(store: SlotStore, shape: TreeShape) {
    this.#store = store;
    this.#tree = new CountedTree(store, shape);
  }

  /** Number of agents on the board. */
  get size(): number {
    return this.#tree.size;
  }

  /**
   * Records an agent's standing, replacing its previous one; throws a TypeError on an invalid standing.
   * @example index.upsert({ agentId: "a", score: 85, iterations: 1, timeToFinalMs: 1_334_000, submittedAt: t })
   * // { previousRank: null, rank: 1 }
   */
  upsert(standing: Standing): UpsertResult {
    assertStanding(standing);
    const store = this.#store;
    let slot = store.find(standing.agentId);
    let previousRank: number | null = null;
    if (slot >= 0) {
      previousRank = this.#tree.positionOf(slot) + 1;
      if (store.holds(slot, standing)) return { previousRank, rank: previousRank };
      this.#tree.remove(slot);
    } else {
      slot = store.allocate(standing.agentId);
    }
    store.write(slot, standing);
    this.#tree.insert(slot, (other) => store.compareKey(other, standing) < 0);
    return { previousRank, rank: this.#tree.positionOf(slot) + 1 };
  }

  /** Removes an agent; returns the rank it had, or null if it was not on the board. */
  remove(agentId: string): number | null {
    const slot = this.#store.find(agentId);
    if (slot < 0) return null;
    const rank = this.#tree.positionOf(slot) + 1;
    this.#tree.remove(slot);
    this.#store.release(slot);
    return rank;
  }

  /** The agent's standing, or null. */
  get(agentId: string): Standing | null {
    const slot = this.#store.find(agentId);
    return slot < 0 ? null : this.#store.read(slot);
  }

  /** The agent's 1-based rank, or null. */
  rankOf(agentId: string): number | null {
    const slot = this.#store.find(agentId);
    return slot < 0 ? null : this.#tree.positionOf(slot) + 1;
  }

  /**
   * A page of the board in rank order. The cursor names the last entry's key, not an offset:
   * entries that did not move while a client paged are each shown exactly once.
   * @example const first = index.page({ limit: 100 }); // then index.page({ limit: 100, after: first.value.next })
   */
  page(request: PageRequest): Result<RankingPage, RankingError> {
    assertCount("page limit", request.limit, 1);
    let start = 0;
    if (request.after !== undefined && request.after !== null) {
      const decoded = decodeCursor(request.after);
      if (!decoded.ok) return decoded;
      const key = decoded.value;
      start = this.#tree.countPreceding((other) => this.#store.compareKey(other, key) <= 0);
    }
    const entries = this.#collect(start, request.limit);
    const last = entries.at(-1);
    const next = last && start + entries.length < this.size ? encodeCursor(last) : null;
    return { ok: true, value: { entries, next } };
  }

  /** The agent with up to `k` entries above and `k` below, in rank order; null if the agent is absent. */
  around(agentId: string, k: number): RankedStanding[] | null {
    assertCount("around k", k, 0);
    const slot = this.#store.find(agentId);
    if (slot < 0) return null;
    const position = this.#tree.positionOf(slot);
    const start = Math.max(0, position - k);
    return this.#collect(start, position + k + 1 - start);
  }

  /** Up to `count` entries from 1-based rank `fromRank` on, in rank order (ranks below 1 start at 1). */
  slice(fromRank: number, count: number): RankedStanding[] {
    assertCount("slice count", count, 0);
    const start = Math.max(0, Math.trunc(fromRank) - 1);
    return start >= this.size ? [] : this.#collect(start, Math.min(count, this.size - start));
  }

  /** Number of agents per interpretation band, from the ranks of the band boundaries. */
  countByBand(): BandCounts {
    const score = this.#store.score;
    const counts = {} as Record<string, number>;
    let above = 0;
    // BANDS is best first, so each band's count is "at least its min" minus the bands above.
    for (const { key, min } of BANDS) {
      const atLeast =
        min === 0 ? this.size : this.#tree.countPreceding((other) => score[other]! >= min);
      counts[key] = atLeast - above;
      above = atLeast;
    }
    return counts as BandCounts;
  }

  /** Test hook: throws if the tree's structure is inconsistent. */
  verify(): void {
    this.#tree.verify();
    if (this.#tree.size !== this.#store.live) throw new Error("tree and store disagree on size");
  }

  /** @internal Linear build from standings already in board order and checked. */
  loadSorted(sorted: readonly Standing[]): void {
    const slots = new Int32Array(sorted.length);
    sorted.forEach((standing, i) => {
      const slot = this.#store.allocate(standing.agentId);
      if (slot < 0) throw new TypeError(`duplicate agentId in bulk build: ${standing.agentId}`);
      this.#store.write(slot, standing);
      slots[i] = slot;
    });
    this.#tree.build(slots);
  }

  #collect(start: number, count: number): RankedStanding[] {
    const entries: RankedStanding[] = [];
    this.#tree.forEachFrom(start, count, (slot, position) => {
      entries.push(this.#store.readRanked(slot, position + 1));
    });
    return entries;
  }
}

/**
 * An empty ranking index.
 * @example const index = createRankingIndex(); index.upsert(standing);
 */
export function createRankingIndex(options?: RankingIndexOptions): RankingIndex {
  return new RankingIndex(new SlotStore(0, 0), resolveShape(options));
}

/**
 * An index holding `standings` (e.g. the Durable Object's rows on wake): validates each, then
 * sorts (skipped when the rows already come in board order, as `ORDER BY` returns them) and builds
 * the tree bottom-up in linear time. Throws a TypeError on an invalid standing or a duplicate agentId.
 * @example const index = buildRankingIndex(rows); // call it when the object wakes, never at module load
 */
export function buildRankingIndex(
  standings: readonly Standing[],
  options?: RankingIndexOptions,
): RankingIndex {
  const shape = resolveShape(options);
  let sorted = true;
  for (let i = 0; i < standings.length; i++) {
    const standing = standings[i]!;
    assertStanding(standing);
    if (i > 0 && sorted && compareStandings(standings[i - 1]!, standing) >= 0) sorted = false;
  }
  const ordered = sorted ? standings : [...standings].sort(compareStandings);
  // 1/16 headroom so the first upserts after a wake do not reallocate every column.
  const headroom = (n: number): number => n + (n >> 4);
  const index = new RankingIndex(
    new SlotStore(headroom(standings.length), headroom(measureIds(standings))),
    shape,
  );
  index.loadSorted(ordered);
  return index;
}
