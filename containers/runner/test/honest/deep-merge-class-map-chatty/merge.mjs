// An honest deep merge written unusually: a class that keeps a cache of the sources it has
// checked (a WeakMap), gathers each level's entries in a Map built from a generator, works on
// null-prototype objects and copies them out as plain ones, and talks a lot on stdout.
const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);

class Merger {
  #checked = new WeakMap();

  isPlain(v) {
    if (v === null || typeof v !== "object") return false;
    if (this.#checked.has(v)) return this.#checked.get(v);
    const proto = Object.getPrototypeOf(v);
    const plain = proto === Object.prototype || proto === null;
    this.#checked.set(v, plain);
    return plain;
  }

  *entries(src) {
    for (const key of Object.keys(src)) if (!FORBIDDEN.has(key)) yield [key, src[key]];
  }

  /** Merges `src` into `dst` with an explicit stack (depth bounded by memory, not the call stack). */
  mergeInto(dst, src) {
    const stack = [{ dst, src, parent: null }];
    while (stack.length > 0) {
      const frame = stack.pop();
      const level = new Map(this.entries(frame.src));
      for (const [key, value] of level) {
        if (value === undefined) continue;
        if (this.isPlain(value)) {
          for (let f = frame; f; f = f.parent)
            if (f.src === value) throw new TypeError("deepMerge: circular source");
          if (!(key in frame.dst) || !this.isPlain(frame.dst[key]))
            frame.dst[key] = Object.create(null);
          stack.push({ dst: frame.dst[key], src: value, parent: frame });
        } else frame.dst[key] = value;
      }
    }
  }

  /** A plain-object copy of a null-prototype tree, again without recursion. */
  plain(root) {
    const out = {};
    const stack = [[out, root]];
    while (stack.length > 0) {
      const [to, from] = stack.pop();
      for (const key of Object.keys(from)) {
        if (FORBIDDEN.has(key)) continue;
        const v = from[key];
        if (this.isPlain(v)) {
          to[key] = {};
          stack.push([to[key], v]);
        } else to[key] = v;
      }
    }
    return out;
  }
}

export function deepMerge(...sources) {
  const m = new Merger();
  for (const s of sources)
    if (!m.isPlain(s)) throw new TypeError("deepMerge: every source must be a plain object");
  const acc = Object.create(null);
  for (const s of sources) m.mergeInto(acc, s);
  console.log(`✓ merged ${sources.length} sources`);
  console.log("ok 1 - all keys copied");
  return m.plain(acc);
}
