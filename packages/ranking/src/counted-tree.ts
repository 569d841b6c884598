/**
 * @module ranking/counted-tree
 * An order-statistic B+tree over slots: leaves hold slot numbers in board order in small
 * Int32Arrays, branches hold their children's entry counts and first slots. Keys live in the
 * SlotStore, so the tree compares through a caller's `precedes` predicate. Each slot's leaf is
 * recorded in `store.leafOf`, so rank and removal walk up from the leaf without comparing keys.
 * Invariants: all leaves at one depth; a branch's counts and mins match its children; non-root
 * leaves hold ≥ max(1, ⌊L/4⌋) slots, non-root branches ≥ max(2, ⌊B/4⌋) children. Pure.
 */
import type { SlotStore } from "./slot-store.ts";

/** Node sizes: leaf slots and branch children. */
export interface TreeShape {
  readonly leafCapacity: number;
  readonly branchCapacity: number;
}

class Leaf {
  readonly slots: Int32Array;
  n = 0;
  parent: Branch | null = null;
  next: Leaf | null = null;
  readonly id: number;
  constructor(capacity: number, id: number) {
    // One spare cell: a leaf overflows by one before it splits.
    this.slots = new Int32Array(capacity + 1);
    this.id = id;
  }
}

class Branch {
  kids: Node[] = [];
  counts: number[] = [];
  mins: number[] = [];
  total = 0;
  parent: Branch | null = null;
}

type Node = Leaf | Branch;

const countOf = (node: Node): number => (node instanceof Leaf ? node.n : node.total);
const firstOf = (node: Node): number => (node instanceof Leaf ? node.slots[0]! : node.mins[0]!);
const sizeOf = (node: Node): number => (node instanceof Leaf ? node.n : node.kids.length);

/** A counted B+tree of slots ordered by the store's keys. */
export class CountedTree {
  root: Node;
  readonly #store: SlotStore;
  readonly #shape: TreeShape;
  readonly #leafMin: number;
  readonly #branchMin: number;
  #leaves: (Leaf | undefined)[] = [];
  readonly #freeLeafIds: number[] = [];

  constructor(store: SlotStore, shape: TreeShape) {
    this.#store = store;
    this.#shape = shape;
    this.#leafMin = Math.max(1, Math.floor(shape.leafCapacity / 4));
    this.#branchMin = Math.max(2, Math.floor(shape.branchCapacity / 4));
    this.root = this.#newLeaf();
  }

  get size(): number {
    return countOf(this.root);
  }

  /** Inserts a slot before the first slot for which `precedes` is false. */
  insert(slot: number, precedes: (other: number) => boolean): void {
    let node = this.root;
    while (node instanceof Branch)
      node = node.kids[lastPreceding(node.mins, node.kids.length, precedes)]!;
    const at = countPrefix(node.slots, node.n, precedes);
    node.slots.copyWithin(at + 1, at, node.n);
    node.slots[at] = slot;
    node.n++;
    this.#store.leafOf[slot] = node.id;
    this.#repairUp(node);
  }

  /** Removes a slot that is in the tree. */
  remove(slot: number): void {
    const leafOf = this.#store.leafOf;
    const leaf = this.#leaves[leafOf[slot]!]!;
    const at = leaf.slots.indexOf(slot);
    leaf.slots.copyWithin(at, at + 1, leaf.n);
    leaf.n--;
    leafOf[slot] = -1;
    this.#repairUp(leaf);
    while (this.root instanceof Branch && this.root.kids.length === 1) {
      this.root = this.root.kids[0]!;
      this.root.parent = null;
    }
  }

  /** 0-based position of a slot that is in the tree. */
  positionOf(slot: number): number {
    const leaf = this.#leaves[this.#store.leafOf[slot]!]!;
    let position = leaf.slots.indexOf(slot);
    let child: Node = leaf;
    for (let p = leaf.parent; p; child = p, p = p.parent) {
      const i = p.kids.indexOf(child);
      for (let k = 0; k < i; k++) position += p.counts[k]!;
    }
    return position;
  }

  /** Number of slots for which `precedes` holds; it must hold on a prefix of the order. */
  countPreceding(precedes: (other: number) => boolean): number {
    let node = this.root;
    if (countOf(node) === 0) return 0;
    let position = 0;
    while (node instanceof Branch) {
      const i = lastPreceding(node.mins, node.kids.length, precedes);
      for (let k = 0; k < i; k++) position += node.counts[k]!;
      node = node.kids[i]!;
    }
    return position + countPrefix(node.slots, node.n, precedes);
  }

  /** Calls `visit(slot, position)` for up to `count` slots starting at 0-based `start`. */
  forEachFrom(start: number, count: number, visit: (slot: number, position: number) => void): void {
    if (start < 0 || start >= this.size || count <= 0) return;
    let node = this.root;
    let offset = start;
    while (node instanceof Branch) {
      let i = 0;
      while (offset >= node.counts[i]!) offset -= node.counts[i++]!;
      node = node.kids[i]!;
    }
    let leaf: Leaf | null = node;
    let position = start;
    for (let left = count; leaf && left > 0; leaf = leaf.next, offset = 0) {
      for (let i = offset; i < leaf.n && left > 0; i++, left--) visit(leaf.slots[i]!, position++);
    }
  }

  /** Replaces the contents with `slots`, already in board order, in linear time. */
  build(slots: Int32Array): void {
    this.#leaves = [];
    this.#freeLeafIds.length = 0;
    const leafOf = this.#store.leafOf;
    const leaves: Node[] = [];
    const target = fillTarget(this.#shape.leafCapacity);
    forEachGroup(slots.length, target, (from, to) => {
      const leaf = this.#newLeaf();
      leaf.slots.set(slots.subarray(from, to));
      leaf.n = to - from;
      for (let i = from; i < to; i++) leafOf[slots[i]!] = leaf.id;
      const previous = leaves.at(-1);
      if (previous instanceof Leaf) previous.next = leaf;
      leaves.push(leaf);
    });
    let level: Node[] = leaves.length > 0 ? leaves : [this.#newLeaf()];
    const fanout = fillTarget(this.#shape.branchCapacity);
    while (level.length > 1) {
      const above: Node[] = [];
      const current = level;
      forEachGroup(current.length, fanout, (from, to) => {
        const branch = new Branch();
        for (let i = from; i < to; i++) appendChild(branch, current[i]!);
        above.push(branch);
      });
      level = above;
    }
    this.root = level[0]!;
    this.root.parent = null;
  }

  /** Walks from a changed node to the root, refreshing counts and mins, splitting and merging. */
  #repairUp(start: Node): void {
    let node: Node = start;
    for (;;) {
      const parent = node.parent;
      if (parent) {
        const i = parent.kids.indexOf(node);
        refreshChild(parent, i);
        if (sizeOf(node) > this.#capacityOf(node)) this.#split(node, parent, i);
        else if (sizeOf(node) < this.#minOf(node)) this.#rebalance(parent, i);
        node = parent;
      } else {
        if (sizeOf(node) > this.#capacityOf(node)) {
          const root = new Branch();
          appendChild(root, node);
          this.root = root;
          this.#split(node, root, 0);
          node = root;
          continue;
        }
        return;
      }
    }
  }

  #capacityOf(node: Node): number {
    return node instanceof Leaf ? this.#shape.leafCapacity : this.#shape.branchCapacity;
  }

  #minOf(node: Node): number {
    return node instanceof Leaf ? this.#leafMin : this.#branchMin;
  }

  /** Moves the upper half of an overflowing node into a new right sibling. */
  #split(node: Node, parent: Branch, i: number): void {
    const keep = sizeOf(node) >> 1;
    let sibling: Node;
    if (node instanceof Leaf) {
      const leaf = this.#newLeaf();
      leaf.slots.set(node.slots.subarray(keep, node.n));
      leaf.n = node.n - keep;
      node.n = keep;
      for (let k = 0; k < leaf.n; k++) this.#store.leafOf[leaf.slots[k]!] = leaf.id;
      leaf.next = node.next;
      node.next = leaf;
      sibling = leaf;
    } else {
      const branch = new Branch();
      for (const kid of node.kids.slice(keep)) appendChild(branch, kid);
      node.kids.length = node.counts.length = node.mins.length = keep;
      node.total -= branch.total;
      sibling = branch;
    }
    sibling.parent = parent;
    parent.kids.splice(i + 1, 0, sibling);
    parent.counts.splice(i + 1, 0, countOf(sibling));
    parent.mins.splice(i + 1, 0, firstOf(sibling));
    parent.counts[i] = countOf(node);
  }

  /** Fixes an underfull child by merging it with a neighbour or borrowing from one. */
  #rebalance(parent: Branch, i: number): void {
    if (parent.kids.length < 2) return;
    const k = i > 0 ? i - 1 : i;
    const left = parent.kids[k]!;
    const right = parent.kids[k + 1]!;
    const combined = sizeOf(left) + sizeOf(right);
    if (combined <= this.#capacityOf(left)) {
      this.#moveFront(right, left, sizeOf(right));
      parent.kids.splice(k + 1, 1);
      parent.counts.splice(k + 1, 1);
      parent.mins.splice(k + 1, 1);
      if (left instanceof Leaf && right instanceof Leaf) {
        left.next = right.next;
        this.#leaves[right.id] = undefined;
        this.#freeLeafIds.push(right.id);
      }
    } else {
      const want = combined >> 1;
      if (sizeOf(left) < want) this.#moveFront(right, left, want - sizeOf(left));
      else this.#moveBack(left, right, sizeOf(left) - want);
      parent.counts[k + 1] = countOf(right);
      parent.mins[k + 1] = firstOf(right);
    }
    parent.counts[k] = countOf(left);
    parent.mins[k] = firstOf(left);
  }

  /** Moves the first `n` items of `from` to the end of its left neighbour `to`. */
  #moveFront(from: Node, to: Node, n: number): void {
    if (from instanceof Leaf && to instanceof Leaf) {
      to.slots.set(from.slots.subarray(0, n), to.n);
      for (let k = 0; k < n; k++) this.#store.leafOf[from.slots[k]!] = to.id;
      from.slots.copyWithin(0, n, from.n);
      to.n += n;
      from.n -= n;
    } else if (from instanceof Branch && to instanceof Branch) {
      for (const kid of from.kids.splice(0, n)) appendChild(to, kid);
      const moved = from.counts.splice(0, n);
      from.mins.splice(0, n);
      for (const c of moved) from.total -= c;
    }
  }

  /** Moves the last `n` items of `from` to the front of its right neighbour `to`. */
  #moveBack(from: Node, to: Node, n: number): void {
    if (from instanceof Leaf && to instanceof Leaf) {
      to.slots.copyWithin(n, 0, to.n);
      to.slots.set(from.slots.subarray(from.n - n, from.n), 0);
      for (let k = 0; k < n; k++) this.#store.leafOf[to.slots[k]!] = to.id;
      to.n += n;
      from.n -= n;
    } else if (from instanceof Branch && to instanceof Branch) {
      const at = from.kids.length - n;
      const kids = from.kids.splice(at, n);
      const counts = from.counts.splice(at, n);
      const mins = from.mins.splice(at, n);
      to.kids.unshift(...kids);
      to.counts.unshift(...counts);
      to.mins.unshift(...mins);
      for (const kid of kids) kid.parent = to;
      for (const c of counts) {
        from.total -= c;
        to.total += c;
      }
    }
  }

  #newLeaf(): Leaf {
    const id = this.#freeLeafIds.pop() ?? this.#leaves.length;
    const leaf = new Leaf(this.#shape.leafCapacity, id);
    this.#leaves[id] = leaf;
    return leaf;
  }

  /** Test hook: throws if any structural invariant is broken. */
  verify(): void {
    const leafOf = this.#store.leafOf;
    let depth = -1;
    let previousLeaf: Leaf | null = null;
    const walk = (node: Node, level: number, isRoot: boolean): void => {
      if (!isRoot && sizeOf(node) < this.#minOf(node)) throw new Error("underfull node");
      if (sizeOf(node) > this.#capacityOf(node)) throw new Error("overfull node");
      if (node instanceof Leaf) {
        if (depth === -1) depth = level;
        if (depth !== level) throw new Error("leaves at different depths");
        if (this.#leaves[node.id] !== node) throw new Error("leaf registry out of date");
        if (previousLeaf && previousLeaf.next !== node) throw new Error("leaf chain broken");
        previousLeaf = node;
        for (let k = 0; k < node.n; k++) {
          if (leafOf[node.slots[k]!] !== node.id) throw new Error("leafOf out of date");
        }
        return;
      }
      let total = 0;
      node.kids.forEach((kid, k) => {
        if (kid.parent !== node) throw new Error("parent link broken");
        if (node.counts[k] !== countOf(kid)) throw new Error("count out of date");
        if (node.mins[k] !== firstOf(kid)) throw new Error("min out of date");
        total += countOf(kid);
        walk(kid, level + 1, false);
      });
      if (total !== node.total) throw new Error("total out of date");
    };
    walk(this.root, 0, true);
    if (previousLeaf !== null && (previousLeaf as Leaf).next !== null)
      throw new Error("leaf chain too long");
  }
}

/** Index of the last child whose first slot precedes the target (child 0 if none does). */
function lastPreceding(
  mins: readonly number[],
  n: number,
  precedes: (other: number) => boolean,
): number {
  let lo = 1;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (precedes(mins[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Length of the prefix of `slots[0..n)` on which `precedes` holds. */
function countPrefix(slots: Int32Array, n: number, precedes: (other: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (precedes(slots[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function refreshChild(parent: Branch, i: number): void {
  const kid = parent.kids[i]!;
  const count = countOf(kid);
  parent.total += count - parent.counts[i]!;
  parent.counts[i] = count;
  if (count > 0) parent.mins[i] = firstOf(kid);
}

function appendChild(branch: Branch, kid: Node): void {
  kid.parent = branch;
  branch.kids.push(kid);
  branch.counts.push(countOf(kid));
  branch.mins.push(firstOf(kid));
  branch.total += countOf(kid);
}

/** Bulk-built nodes are filled to 3/4 so that the first inserts do not split them at once. */
function fillTarget(capacity: number): number {
  return Math.max(2, Math.floor((capacity * 3) / 4));
}

/** Splits `n` items into ⌈n/target⌉ groups of near-equal size. */
function forEachGroup(n: number, target: number, visit: (from: number, to: number) => void): void {
  const groups = Math.ceil(n / target);
  for (let g = 0, from = 0; g < groups; g++) {
    const to = Math.round(((g + 1) * n) / groups);
    visit(from, to);
    from = to;
  }
}
