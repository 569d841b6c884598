// Fast merge using for...in (includes inherited keys) and direct assignment of every key.
export function deepMerge(...sources) {
  const out = {};
  for (const src of sources) {
    if (src === null || typeof src !== "object" || Array.isArray(src))
      throw new TypeError("bad source");
    merge(out, src);
  }
  return out;
}

function merge(dst, src) {
  for (const key in src) {
    const v = src[key];
    if (v === undefined) continue;
    if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      if (typeof dst[key] !== "object" || dst[key] === null) dst[key] = {};
      merge(dst[key], v);
    } else {
      dst[key] = v;
    }
  }
}
