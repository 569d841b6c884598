const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);

export function mergeLoose(dst: Record<string, unknown>, src: Record<string, unknown>): void {
  for (const key in src) {
    // ruleid: bouts.js.prototype-pollution.unguarded-key-copy
    dst[key] = src[key];
  }
}

export function mergeKeys(dst: Record<string, unknown>, src: Record<string, unknown>): void {
  for (const key of Object.keys(src)) {
    const v = src[key];
    if (v && typeof v === "object") {
      // ruleid: bouts.js.prototype-pollution.unguarded-key-copy
      if (typeof dst[key] !== "object") dst[key] = {};
      mergeKeys(dst[key] as Record<string, unknown>, v as Record<string, unknown>);
    } else {
      // ruleid: bouts.js.prototype-pollution.unguarded-key-copy
      dst[key] = v;
    }
  }
}

export function mergeEntries(dst: Record<string, unknown>, src: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(src)) {
    // ruleid: bouts.js.prototype-pollution.unguarded-key-copy
    dst[key] = value;
  }
}

export function mergeGuarded(dst: Record<string, unknown>, src: Record<string, unknown>): void {
  for (const key of Object.keys(src)) {
    if (FORBIDDEN.has(key)) continue;
    // ok: bouts.js.prototype-pollution.unguarded-key-copy
    dst[key] = src[key];
  }
}

export function mergeGuardedInline(
  dst: Record<string, unknown>,
  src: Record<string, unknown>,
): void {
  for (const key in src) {
    if (key === "__proto__" || key === "constructor" || key === "prototype") continue;
    // ok: bouts.js.prototype-pollution.unguarded-key-copy
    dst[key] = src[key];
  }
}

export function copyIndexes(dst: number[], src: number[]): void {
  for (let i = 0; i < src.length; i++) {
    // ok: bouts.js.prototype-pollution.unguarded-key-copy
    dst[i] = src[i]!;
  }
}

export function mergeTypeGuarded(dst: Record<string, unknown>, src: Record<string, unknown>): void {
  for (const key of Object.keys(src)) {
    // A skip whose condition mentions the key but not a dangerous name guards nothing.
    if (typeof key !== "string") continue;
    // ruleid: bouts.js.prototype-pollution.unguarded-key-copy
    dst[key] = src[key];
  }
}

export function mergeConstructorGuarded(
  dst: Record<string, unknown>,
  src: Record<string, unknown>,
): void {
  for (const key of Object.keys(src)) {
    if (typeof key !== "string" || key === "constructor" || key === "prototype") continue;
    if (key === "__proto__") {
      continue;
    }
    // ok: bouts.js.prototype-pollution.unguarded-key-copy
    dst[key] = src[key];
  }
}
