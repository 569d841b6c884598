/**
 * @module ranking/cost-order
 * The board read by cost: every standing with its priced cost, in cost order (cheapest first,
 * "not measured or not priced" last, equal costs in official order), with keyset pages, a cost
 * ceiling that keeps only entries proven to cost at most it, the same ceiling in official order,
 * and the Pareto frontier of score against cost. Built in bulk from a board's rows (O(n log n)),
 * then kept up to date as agents change (a pass over the order, then a binary search and an
 * array move per changed entry) and read in O(log n + page); after any sequence of changes it
 * answers exactly as a fresh build of the same entries. The official rank is never changed by any of it. Pure: no I/O, no clock.
 */
import type { Result } from "@bouts/result";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import type { RankingError } from "./errors.ts";
import { compareStandings, type Standing } from "./standing.ts";

/** One standing and what its ranking submission cost (null: not measured or not priced). */
export interface CostEntry {
  readonly standing: Standing;
  readonly picoUsd: bigint | null;
  /** The unrounded score as a number, for the frontier. */
  readonly unrounded: number;
}

/** Which order a cost read pages in. */
export type CostSort = "cost" | "rank";

/** A cost read: at most `limit` entries after `after`, optionally only those ≤ `maxPicoUsd`. */
export interface CostPageRequest {
  readonly sort: CostSort;
  readonly limit: number;
  readonly after?: string | null;
  /** Keep only entries whose cost is known and at most this; unmeasured entries are dropped. */
  readonly maxPicoUsd?: bigint | null;
}

/** A page of a cost read, the cursor of the next page and how many entries the read selects. */
export interface CostPage {
  readonly entries: CostEntry[];
  readonly next: string | null;
  readonly total: number;
}

const COST_CURSOR = "c1";

/** Cost order: cheapest first, unknown cost last, then the official order. */
export function compareCostEntries(a: CostEntry, b: CostEntry): number {
  if (a.picoUsd !== b.picoUsd) {
    if (a.picoUsd === null) return 1;
    if (b.picoUsd === null) return -1;
    return a.picoUsd < b.picoUsd ? -1 : 1;
  }
  return compareStandings(a.standing, b.standing);
}

const byRank = (a: CostEntry, b: CostEntry) => compareStandings(a.standing, b.standing);

/** Index of the first entry of `sorted` that `isAfter` says lies strictly after the cursor. */
function firstAfter(
  sorted: readonly CostEntry[],
  isAfter: (e: CostEntry) => boolean,
  end = sorted.length,
): number {
  let lo = 0;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isAfter(sorted[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Which entries a read in official order selects: all, those of known cost, those ≤ a cost. */
type Bound = "all" | "priced" | bigint;

const inBound = (e: CostEntry, bound: Bound): boolean =>
  bound === "all" || (e.picoUsd !== null && (bound === "priced" || e.picoUsd <= bound));

/** Inserts `e` into `sorted` (ordered by `compare`) where a sort would put it; returns where. */
function insertSorted(
  sorted: CostEntry[],
  e: CostEntry,
  compare: (a: CostEntry, b: CostEntry) => number,
): number {
  const at = firstAfter(sorted, (x) => compare(x, e) > 0);
  sorted.splice(at, 0, e);
  return at;
}

/** FNV-1a of an agent id: a small integer to scan for (equal ids, equal hashes). */
function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** Removes `e` itself from `sorted` (ordered by `compare`, which orders `e` apart from all others). */
function removeSorted(
  sorted: CostEntry[],
  e: CostEntry,
  compare: (a: CostEntry, b: CostEntry) => number,
): void {
  const at = firstAfter(sorted, (x) => compare(x, e) >= 0);
  if (sorted[at] !== e) throw new Error("cost order out of step with its entries");
  sorted.splice(at, 1);
}

/**
 * A board's entries in cost order: built once, then changed as the board changes (`update`,
 * `set`, `remove`), so a new board version costs its changes, not a rebuild. Agent ids are
 * unique, as a board's are.
 */
export class CostOrder {
  readonly #byCost: CostEntry[];
  /** hashId of each #byCost entry's agent, in the same order: scanned contiguously by update. */
  readonly #hashes: number[];
  /** How many entries have a known cost (they come first in #byCost). */
  #priced: number;
  #frontier: string[] | null = null;
  /** The last selection read in official order, kept through changes. */
  #bounded: { bound: Bound; byRank: CostEntry[] } | null = null;

  private constructor(byCost: CostEntry[]) {
    this.#byCost = byCost;
    this.#hashes = byCost.map((e) => hashId(e.standing.agentId));
    this.#priced = firstAfter(byCost, (e) => e.picoUsd === null);
  }

  /** Sorts the entries into cost order. */
  static build(entries: readonly CostEntry[]): CostOrder {
    return new CostOrder([...entries].sort(compareCostEntries));
  }

  /** Number of entries. */
  get size(): number {
    return this.#byCost.length;
  }

  /** Number of entries whose cost is not measured or not priced. */
  get unknown(): number {
    return this.#byCost.length - this.#priced;
  }

  /**
   * Drops the entries of `agentIds` and of the agents `entries` name, then adds `entries` where
   * a sort would put them; returns how many entries were dropped. One pass over the ids' hashes
   * finds the dropped (no map by agent is kept: filling one costs more than the sort of a
   * build), then a binary search and one array move per changed entry.
   */
  update(agentIds: Iterable<string>, entries: readonly CostEntry[]): number {
    const drop = new Set(agentIds);
    for (const e of entries) drop.add(e.standing.agentId);
    const byCost = this.#byCost;
    const hashes = this.#hashes;
    // The ids' hashes lie in one contiguous array: the scan reads no entry but the candidates.
    const wanted = new Set([...drop].map(hashId));
    const at: number[] = [];
    for (let i = 0; i < hashes.length; i++)
      if (wanted.has(hashes[i]!) && drop.has(byCost[i]!.standing.agentId)) at.push(i);
    // From the last to the first, so the positions still to come stay put.
    for (let k = at.length - 1; k >= 0; k--) {
      const e = byCost.splice(at[k]!, 1)[0]!;
      hashes.splice(at[k]!, 1);
      if (e.picoUsd !== null) this.#priced--;
      if (this.#bounded && inBound(e, this.#bounded.bound))
        removeSorted(this.#bounded.byRank, e, byRank);
    }
    const dropped = at.length;
    for (const e of entries) {
      hashes.splice(insertSorted(byCost, e, compareCostEntries), 0, hashId(e.standing.agentId));
      if (e.picoUsd !== null) this.#priced++;
      if (this.#bounded && inBound(e, this.#bounded.bound))
        insertSorted(this.#bounded.byRank, e, byRank);
    }
    if (dropped > 0 || entries.length > 0) this.#frontier = null;
    return dropped;
  }

  /** Adds the agent's entry, or replaces the one held (its standing or cost changed). */
  set(entry: CostEntry): void {
    this.update([], [entry]);
  }

  /** Removes the agent's entry; false when none is held. */
  remove(agentId: string): boolean {
    return this.update([agentId], []) > 0;
  }

  /** Number of entries that cost at most `maxPicoUsd`. */
  countAtMost(maxPicoUsd: bigint): number {
    return firstAfter(this.#byCost, (e) => e.picoUsd === null || e.picoUsd > maxPicoUsd);
  }

  /**
   * A page in cost order or in official order, optionally under a cost ceiling. A cursor from
   * one order is refused by the other (`bad-cursor`).
   */
  page(request: CostPageRequest): Result<CostPage, RankingError> {
    const max = request.maxPicoUsd ?? null;
    // The selection is a prefix of a sorted array (no copy): the cost order up to the ceiling,
    // or the ceiling's entries in official order.
    const selected = request.sort === "cost" ? this.#byCost : this.#byRank(max ?? "all");
    const end = request.sort === "cost" && max !== null ? this.countAtMost(max) : selected.length;
    let start = 0;
    if (request.after !== undefined && request.after !== null) {
      const key =
        request.sort === "cost" ? decodeCostCursor(request.after) : decodeRank(request.after);
      if (!key.ok) return key;
      const cursor = key.value;
      start = firstAfter(
        selected,
        (e) =>
          request.sort === "cost"
            ? compareCostEntries(e, cursor) > 0
            : compareStandings(e.standing, cursor.standing) > 0,
        end,
      );
    }
    const entries = selected.slice(start, Math.min(end, start + request.limit));
    const last = entries.at(-1);
    const next =
      last && start + entries.length < end
        ? request.sort === "cost"
          ? encodeCostCursor(last)
          : encodeCursor(last.standing)
        : null;
    return { ok: true, value: { entries, next, total: end } };
  }

  /**
   * The agent ids on the Pareto frontier of unrounded score against cost, cheapest first
   * (`computeParetoFrontier` of the priced entries, read off the cost order in one pass: within
   * a cost, the best score's entries in official order, when it beats every cheaper one).
   */
  frontier(): string[] {
    if (this.#frontier) return this.#frontier;
    const frontier: string[] = [];
    const byCost = this.#byCost;
    let best = -Infinity;
    for (let i = 0; i < this.#priced;) {
      const cost = byCost[i]!.picoUsd;
      let end = i;
      let top = -Infinity;
      for (; end < this.#priced && byCost[end]!.picoUsd === cost; end++)
        top = Math.max(top, byCost[end]!.unrounded);
      if (top > best)
        for (let k = i; k < end; k++)
          if (byCost[k]!.unrounded === top) frontier.push(byCost[k]!.standing.agentId);
      best = Math.max(best, top);
      i = end;
    }
    this.#frontier = frontier;
    return frontier;
  }

  /** The best-ranked `limit` entries whose cost is known, in official order. */
  pricedByRank(limit: number): CostEntry[] {
    return this.#byRank("priced").slice(0, limit);
  }

  // The entries a bound selects, in official order; the last bound asked is kept (and kept up
  // to date by set and remove).
  #byRank(bound: Bound): CostEntry[] {
    if (this.#bounded?.bound !== bound) {
      const count =
        bound === "all" ? this.size : bound === "priced" ? this.#priced : this.countAtMost(bound);
      this.#bounded = { bound, byRank: this.#byCost.slice(0, count).sort(byRank) };
    }
    return this.#bounded.byRank;
  }
}

/** `c1.<picodollars in base 36, or "n" when unknown>.<the official-order cursor>` */
function encodeCostCursor(e: CostEntry): string {
  return `${COST_CURSOR}.${e.picoUsd === null ? "n" : e.picoUsd.toString(36)}.${encodeCursor(e.standing)}`;
}

/** Decodes a cost-order cursor (`bad-cursor` for anything this module did not issue). */
export function decodeCostCursor(cursor: string): Result<CostEntry, RankingError> {
  const [tag, cost, ...rest] = cursor.split(".");
  if (tag !== COST_CURSOR || cost === undefined || !/^(n|0|[1-9a-z][0-9a-z]{0,24})$/.test(cost))
    return { ok: false, error: { reason: "bad-cursor", detail: "not a cost-order cursor" } };
  const standing = decodeCursor(rest.join("."));
  if (!standing.ok) return standing;
  let picoUsd: bigint | null = null;
  if (cost !== "n")
    for (const digit of cost) picoUsd = (picoUsd ?? 0n) * 36n + BigInt(parseInt(digit, 36));
  return { ok: true, value: { standing: standing.value, picoUsd, unrounded: 0 } };
}

function decodeRank(cursor: string): Result<CostEntry, RankingError> {
  const standing = decodeCursor(cursor);
  if (!standing.ok) return standing;
  return { ok: true, value: { standing: standing.value, picoUsd: null, unrounded: 0 } };
}
