/**
 * @module ranking/slot-store
 * Structure-of-arrays storage for standings: one slot per agent, its fields in typed arrays,
 * its agentId as bytes in one shared arena, and an open-addressing hash table agentId → slot.
 * No per-entry JS object or string survives in memory, which is what keeps a million agents
 * inside a Worker isolate. Invariants: a live slot's id bytes never change; the hash table's
 * load stays ≤ 3/4; `leafOf` is owned by the tree. Pure: no I/O, no clock.
 */
import type { RankedStanding, Standing } from "./standing.ts";

const ESCAPE = 0xff;
const EMPTY = 0;
const MIN_CAPACITY = 16;
/** Scratch of readId: the code units of the id being decoded. */
const ID_CODES: number[] = [];

/** Order-preserving byte encoding of an id: a code unit < 0xff is one byte, others 0xff hi lo. */
function encodedLength(id: string): number {
  let length = id.length;
  for (let i = 0; i < id.length; i++) if (id.charCodeAt(i) >= ESCAPE) length += 2;
  return length;
}

/** FNV-1a over UTF-16 code units, then murmur3's finalizer: FNV's low bits alone cluster. */
function hashString(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return finalizeHash(h);
}

function finalizeHash(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Bytes per slot across all columns. */
const SLOT_BYTES = 8 + 8 + 4 + 4 + 4 + 2 + 1;

/** The per-slot columns, one typed array each. */
interface Columns {
  timeToFinalMs: Float64Array;
  submittedAt: Float64Array;
  iterations: Uint32Array;
  leafOf: Int32Array;
  idStart: Int32Array;
  idBytes: Uint16Array;
  score: Uint8Array;
}

/**
 * All per-slot columns as views of one ArrayBuffer, widest first for alignment: one external
 * allocation instead of seven (each large one can trigger a full GC of a big heap).
 */
function allocateColumns(capacity: number): Columns {
  const buffer = new ArrayBuffer(capacity * SLOT_BYTES);
  let offset = 0;
  const take = <T>(make: (b: ArrayBuffer, at: number, n: number) => T, width: number): T => {
    const view = make(buffer, offset, capacity);
    offset += width * capacity;
    return view;
  };
  const columns = {
    timeToFinalMs: take((b, at, n) => new Float64Array(b, at, n), 8),
    submittedAt: take((b, at, n) => new Float64Array(b, at, n), 8),
    iterations: take((b, at, n) => new Uint32Array(b, at, n), 4),
    leafOf: take((b, at, n) => new Int32Array(b, at, n), 4),
    idStart: take((b, at, n) => new Int32Array(b, at, n), 4),
    idBytes: take((b, at, n) => new Uint16Array(b, at, n), 2),
    score: take((b, at, n) => new Uint8Array(b, at, n), 1),
  };
  columns.leafOf.fill(-1);
  return columns;
}

/** The column store; slots are dense integers reused after release. */
export class SlotStore {
  capacity: number;
  // The columns are assigned in the constructor, through #adoptColumns.
  score!: Uint8Array;
  iterations!: Uint32Array;
  timeToFinalMs!: Float64Array;
  submittedAt!: Float64Array;
  /** Leaf id holding each slot, maintained by the tree; -1 when not in the tree. */
  leafOf!: Int32Array;
  idStart!: Int32Array;
  idBytes!: Uint16Array;
  arena: Uint8Array;
  arenaUsed = 0;
  arenaWaste = 0;
  /** slot + 1, or 0 for an empty bucket; linear probing with backward-shift deletion. */
  table: Int32Array;
  live = 0;
  #nextSlot = 0;
  readonly #freeSlots: number[] = [];

  constructor(capacity: number, arenaBytes: number) {
    this.capacity = Math.max(MIN_CAPACITY, capacity);
    this.#adoptColumns(allocateColumns(this.capacity));
    this.arena = new Uint8Array(Math.max(MIN_CAPACITY, arenaBytes));
    this.table = new Int32Array(tableSizeFor(this.capacity));
  }

  /** The slot holding `id`, or -1. */
  find(id: string): number {
    const mask = this.table.length - 1;
    for (let b = hashString(id) & mask; ; b = (b + 1) & mask) {
      const entry = this.table[b]!;
      if (entry === EMPTY) return -1;
      if (this.compareId(entry - 1, id) === 0) return entry - 1;
    }
  }

  /** Takes a free slot for `id` and indexes it, in one probe; -1 if the id already has a slot. */
  allocate(id: string): number {
    if ((this.live + 1) * 4 > this.table.length * 3) this.#rehash(this.table.length * 2);
    const mask = this.table.length - 1;
    let b = hashString(id) & mask;
    for (let entry = this.table[b]!; entry !== EMPTY; b = (b + 1) & mask, entry = this.table[b]!) {
      if (this.compareId(entry - 1, id) === 0) return -1;
    }
    let slot = this.#freeSlots.pop();
    if (slot === undefined) {
      if (this.#nextSlot === this.capacity) this.#growSlots(Math.ceil(this.capacity * 1.5));
      slot = this.#nextSlot++;
    }
    this.#writeId(slot, id);
    this.live++;
    this.table[b] = slot + 1;
    return slot;
  }

  /** Frees a slot (the caller removed it from the tree) and drops its id from the table. */
  release(slot: number): void {
    const mask = this.table.length - 1;
    let hole = this.#hashSlot(slot) & mask;
    while (this.table[hole] !== slot + 1) hole = (hole + 1) & mask;
    for (let j = (hole + 1) & mask; this.table[j] !== EMPTY; j = (j + 1) & mask) {
      const home = this.#hashSlot(this.table[j]! - 1) & mask;
      // Move j back into the hole unless its home lies cyclically in (hole, j].
      const stays = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!stays) {
        this.table[hole] = this.table[j]!;
        hole = j;
      }
    }
    this.table[hole] = EMPTY;
    this.arenaWaste += this.idBytes[slot]!;
    this.idBytes[slot] = 0;
    this.live--;
    this.#freeSlots.push(slot);
  }

  /** Writes the ordering fields of a standing into its slot. */
  write(slot: number, s: Standing): void {
    this.score[slot] = s.score;
    this.iterations[slot] = s.iterations;
    this.timeToFinalMs[slot] = s.timeToFinalMs;
    this.submittedAt[slot] = s.submittedAt;
  }

  /** True when the slot already holds exactly this key. */
  holds(slot: number, s: Standing): boolean {
    return (
      this.score[slot] === s.score &&
      this.iterations[slot] === s.iterations &&
      this.timeToFinalMs[slot] === s.timeToFinalMs &&
      this.submittedAt[slot] === s.submittedAt
    );
  }

  /** Compares the slot's id with a string in UTF-16 code-unit order. */
  compareId(slot: number, id: string): number {
    const arena = this.arena;
    let p = this.idStart[slot]!;
    const end = p + this.idBytes[slot]!;
    let i = 0;
    while (p < end && i < id.length) {
      let c = arena[p++]!;
      if (c === ESCAPE) {
        c = (arena[p]! << 8) | arena[p + 1]!;
        p += 2;
      }
      const d = id.charCodeAt(i++);
      if (c !== d) return c - d;
    }
    return (p < end ? 1 : 0) - (i < id.length ? 1 : 0);
  }

  /**
   * Compares the slot's key with a standing's in board order (negative: the slot ranks above).
   * @example store.compareKey(slot, standing) < 0 // slot precedes standing
   */
  compareKey(slot: number, s: Standing): number {
    return (
      s.score - this.score[slot]! ||
      this.iterations[slot]! - s.iterations ||
      this.timeToFinalMs[slot]! - s.timeToFinalMs ||
      this.submittedAt[slot]! - s.submittedAt ||
      this.compareId(slot, s.agentId)
    );
  }

  /** Decodes the slot's id into a string. */
  readId(slot: number): string {
    const arena = this.arena;
    let p = this.idStart[slot]!;
    const end = p + this.idBytes[slot]!;
    // The code units into one reused array, then one flat string in one call: no view of the
    // arena and no string concatenation per id (a page decodes a hundred).
    const codes = ID_CODES;
    let n = 0;
    while (p < end) {
      let c = arena[p++]!;
      if (c === ESCAPE) {
        c = (arena[p]! << 8) | arena[p + 1]!;
        p += 2;
      }
      if (n < codes.length) codes[n] = c;
      else codes.push(c);
      n++;
    }
    codes.length = n;
    return String.fromCharCode.apply(null, codes);
  }

  /** Materializes the slot as a standing object. */
  read(slot: number): Standing {
    return {
      agentId: this.readId(slot),
      score: this.score[slot]!,
      iterations: this.iterations[slot]!,
      timeToFinalMs: this.timeToFinalMs[slot]!,
      submittedAt: this.submittedAt[slot]!,
    };
  }

  /** Materializes the slot as a ranked standing. */
  readRanked(slot: number, rank: number): RankedStanding {
    // The fields of read(slot) in its order, then the rank: one object, not a copy of one.
    return {
      agentId: this.readId(slot),
      score: this.score[slot]!,
      iterations: this.iterations[slot]!,
      timeToFinalMs: this.timeToFinalMs[slot]!,
      submittedAt: this.submittedAt[slot]!,
      rank,
    };
  }

  #hashSlot(slot: number): number {
    const arena = this.arena;
    let p = this.idStart[slot]!;
    const end = p + this.idBytes[slot]!;
    let h = 0x811c9dc5;
    while (p < end) {
      let c = arena[p++]!;
      if (c === ESCAPE) {
        c = (arena[p]! << 8) | arena[p + 1]!;
        p += 2;
      }
      h = Math.imul(h ^ c, 0x01000193);
    }
    return finalizeHash(h);
  }

  #writeId(slot: number, id: string): void {
    const length = encodedLength(id);
    if (this.arenaUsed + length > this.arena.length) this.#makeArenaRoom(length);
    let p = this.arenaUsed;
    this.idStart[slot] = p;
    this.idBytes[slot] = length;
    const arena = this.arena;
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      if (c < ESCAPE) {
        arena[p++] = c;
      } else {
        arena[p++] = ESCAPE;
        arena[p++] = c >> 8;
        arena[p++] = c & 0xff;
      }
    }
    this.arenaUsed = p;
  }

  /** Compacts the arena when at least half of it is freed ids, else grows it by half. */
  #makeArenaRoom(length: number): void {
    const liveBytes = this.arenaUsed - this.arenaWaste;
    const wanted = liveBytes + length;
    const size =
      this.arenaWaste * 2 >= this.arenaUsed && wanted <= this.arena.length
        ? this.arena.length
        : Math.max(Math.ceil(this.arena.length * 1.5), wanted);
    const old = this.arena;
    const next = new Uint8Array(size);
    let p = 0;
    for (let slot = 0; slot < this.#nextSlot; slot++) {
      const n = this.idBytes[slot]!;
      if (n === 0) continue;
      const start = this.idStart[slot]!;
      next.set(old.subarray(start, start + n), p);
      this.idStart[slot] = p;
      p += n;
    }
    this.arena = next;
    this.arenaUsed = p;
    this.arenaWaste = 0;
  }

  #growSlots(capacity: number): void {
    const columns = allocateColumns(capacity);
    columns.score.set(this.score);
    columns.iterations.set(this.iterations);
    columns.timeToFinalMs.set(this.timeToFinalMs);
    columns.submittedAt.set(this.submittedAt);
    columns.leafOf.set(this.leafOf);
    columns.idStart.set(this.idStart);
    columns.idBytes.set(this.idBytes);
    this.#adoptColumns(columns);
    this.capacity = capacity;
  }

  #adoptColumns(columns: Columns): void {
    this.score = columns.score;
    this.iterations = columns.iterations;
    this.timeToFinalMs = columns.timeToFinalMs;
    this.submittedAt = columns.submittedAt;
    this.leafOf = columns.leafOf;
    this.idStart = columns.idStart;
    this.idBytes = columns.idBytes;
  }

  #rehash(size: number): void {
    this.table = new Int32Array(size);
    const mask = size - 1;
    for (let slot = 0; slot < this.#nextSlot; slot++) {
      if (this.idBytes[slot] === 0) continue;
      let b = this.#hashSlot(slot) & mask;
      while (this.table[b] !== EMPTY) b = (b + 1) & mask;
      this.table[b] = slot + 1;
    }
  }
}

/** Smallest power of two holding `capacity` ids at load ≤ 3/4. */
function tableSizeFor(capacity: number): number {
  let size = MIN_CAPACITY;
  while (size * 3 < capacity * 4) size *= 2;
  return size;
}

/** Bytes the arena needs for these ids. */
export function measureIds(standings: readonly Standing[]): number {
  let total = 0;
  for (const s of standings) total += encodedLength(s.agentId);
  return total;
}
