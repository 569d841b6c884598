// Reference: iterative deep merge (an explicit stack, so depth is bounded by memory, not by the
// call stack), with hostile keys dropped and cycles detected along each path.
const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);

function isPlainObject(v) {
  if (v === null || typeof v !== "object") return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function onPath(frame, value) {
  for (let f = frame; f; f = f.parent) if (f.src === value) return true;
  return false;
}

export function deepMerge(...sources) {
  for (const s of sources) {
    if (!isPlainObject(s)) throw new TypeError("deepMerge: every source must be a plain object");
  }
  const out = {};
  // A frame merges `src` into `dst`; `parent` links the frames above it, for cycle checks.
  const stack = sources.map((src) => ({ dst: out, src, parent: null })).reverse();
  while (stack.length > 0) {
    const frame = stack.pop();
    const { dst, src } = frame;
    for (const key of Object.keys(src)) {
      if (FORBIDDEN.has(key)) continue;
      const value = src[key];
      if (value === undefined) continue;
      if (isPlainObject(value)) {
        if (onPath(frame, value)) throw new TypeError("deepMerge: circular source");
        if (!isPlainObject(dst[key])) dst[key] = {};
        stack.push({ dst: dst[key], src: value, parent: frame });
      } else {
        dst[key] = value;
      }
    }
  }
  return out;
}
