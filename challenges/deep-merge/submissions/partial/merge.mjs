// Recursive merge; handles the common cases. Arrays are merged index by index.
export function deepMerge(...sources) {
  const out = {};
  for (const src of sources) mergeInto(out, src);
  return out;
}

function mergeInto(dst, src) {
  for (const key of Object.keys(src)) {
    const v = src[key];
    if (v && typeof v === "object") {
      if (typeof dst[key] !== "object" || dst[key] === null) dst[key] = Array.isArray(v) ? [] : {};
      mergeInto(dst[key], v);
    } else {
      dst[key] = v;
    }
  }
}
