/**
 * @module ranking/slot-store
 * Structure-of-arrays storage for standings: one slot per agent, its fields in typed arrays,
 * its agentId as bytes in one shared arena, and an open-addressing hash table agentId → slot.
 * No per-entry JS object or string survives in memory, which is what keeps a million agents
 * inside a Worker isolate. Invariants: a live slot's id bytes never change; the hash table's
 * load stays ≤ 1/2; `leafOf` is owned by the tree. Pure: no I/O, no clock.
 */
import type { Standing } from "./standing.ts";

const ESCAPE = 0xff;
const EMPTY = 0;
const MIN_CAPACITY = 16;

/** Order-preserving byte encoding of an id: a code unit < 0xff is one byte, others 0xff hi lo. */
function encodedLength(id: string): number {
  let length = id.length;
  for (let i = 0; i < id.length; i++) if (id.charCodeAt(i) >= ESCAPE) length += 2;
  return length;
}

/** FNV-1a over UTF-16 code units. */
function hashString(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function growTo<T extends Uint8Array | Uint16Array | Int32Array | Uint32Array | Float64Array>(
  old: T,
  capacity: number,
  make: (n: number) => T,
): T {
  const next = make(capacity);
  next.set(old);
  return next;
}

/** The column store; slots are dense integers reused after release. */
export class SlotStore {
  capacity: number;
  score: Uint8Array;
  iterations: Uint32Array;
  timeToFinalMs: Float64Array;
  submittedAt: Float64Array;
  /** Leaf id holding each slot, maintained by the tree; -1 when not in the tree. */
  leafOf: Int32Array;
  idStart: Int32Array;
  idBytes: Uint16Array;
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
    this.score = new Uint8Array(this.capacity);
    this.iterations = new Uint32Array(this.capacity);
    this.timeToFinalMs = new Float64Array(this.capacity);
    this.submittedAt = new Float64Array(this.capacity);
    this.leafOf = new Int32Array(this.capacity).fill(-1);
    this.idStart = new Int32Array(this.capacity);
    this.idBytes = new Uint16Array(this.capacity);
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

  /** Takes a free slot for a new id (the caller checked it is absent) and indexes it. */
  allocate(id: string): number {
    let slot = this.#freeSlots.pop();
    if (slot === undefined) {
      if (this.#nextSlot === this.capacity) this.#growSlots(Math.ceil(this.capacity * 1.5));
      slot = this.#nextSlot++;
    }
    if ((this.live + 1) * 2 > this.table.length) this.#rehash(this.table.length * 2);
    this.#writeId(slot, id);
    this.live++;
    const mask = this.table.length - 1;
    let b = hashString(id) & mask;
    while (this.table[b] !== EMPTY) b = (b + 1) & mask;
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
    let id = "";
    while (p < end) {
      let c = arena[p++]!;
      if (c === ESCAPE) {
        c = (arena[p]! << 8) | arena[p + 1]!;
        p += 2;
      }
      id += String.fromCharCode(c);
    }
    return id;
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
    return h >>> 0;
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
    this.score = growTo(this.score, capacity, (n) => new Uint8Array(n));
    this.iterations = growTo(this.iterations, capacity, (n) => new Uint32Array(n));
    this.timeToFinalMs = growTo(this.timeToFinalMs, capacity, (n) => new Float64Array(n));
    this.submittedAt = growTo(this.submittedAt, capacity, (n) => new Float64Array(n));
    const leafOf = new Int32Array(capacity).fill(-1);
    leafOf.set(this.leafOf);
    this.leafOf = leafOf;
    this.idStart = growTo(this.idStart, capacity, (n) => new Int32Array(n));
    this.idBytes = growTo(this.idBytes, capacity, (n) => new Uint16Array(n));
    this.capacity = capacity;
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

/** Smallest power of two holding `capacity` ids at load ≤ 1/2. */
function tableSizeFor(capacity: number): number {
  let size = MIN_CAPACITY;
  while (size < capacity * 2) size *= 2;
  return size;
}

/** Bytes the arena needs for these ids. */
export function measureIds(standings: readonly Standing[]): number {
  let total = 0;
  for (const s of standings) total += encodedLength(s.agentId);
  return total;
}
