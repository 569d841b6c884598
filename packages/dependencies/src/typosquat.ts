/**
 * @module dependencies/typosquat
 * Whether a package name is shaped like a slip of a popular one (popular.ts): neither popular
 * nor a known look-alike, at least 4 characters, and either one edit away from a popular name of the same
 * ecosystem (Damerau-Levenshtein distance 1: an insertion, deletion, substitution or swap of
 * adjacent characters) or equal to one once separators and look-alike characters are folded
 * (`-` `_` `.` dropped; 0→o, 1 and i→l, rn→m). A heuristic; the allowlist exempts names.
 * Pure: no I/O.
 */
import { normalizePythonName } from "./pep.ts";
import { LOOKALIKES_NPM, LOOKALIKES_PYPI, POPULAR_NPM, POPULAR_PYPI } from "./popular.ts";
import type { Ecosystem } from "./types.ts";

/** Names shorter than this are never checked: too many honest names are one edit apart. */
export const TYPOSQUAT_MIN_LENGTH = 4;

/** The name as the registry compares names: npm lower-case, PyPI's PEP 503 form. */
function canonicalName(name: string, ecosystem: Ecosystem): string {
  return ecosystem === "PyPI" ? normalizePythonName(name) : name.toLowerCase();
}

/** The name with separators dropped and look-alike characters folded together. */
function skeletonOf(name: string): string {
  return name.replace(/[-_.]/g, "").replace(/rn/g, "m").replace(/0/g, "o").replace(/[1i]/g, "l");
}

interface Popular {
  /** Every name never refused: the popular ones and their established look-alikes. */
  names: ReadonlySet<string>;
  /** Each popular name with its skeleton, the ones at least TYPOSQUAT_MIN_LENGTH long. */
  guarded: readonly { name: string; skeleton: string }[];
}

function indexPopular(
  popular: readonly string[],
  lookalikes: readonly string[],
  ecosystem: Ecosystem,
): Popular {
  const guarded = popular
    .map((n) => canonicalName(n, ecosystem))
    .filter((n) => n.length >= TYPOSQUAT_MIN_LENGTH)
    .map((name) => ({ name, skeleton: skeletonOf(name) }));
  const names = new Set([...popular, ...lookalikes].map((n) => canonicalName(n, ecosystem)));
  return { names, guarded };
}

let popularIndex: Record<Ecosystem, Popular> | null = null;

/** The indexes, built on first use (the module has no side effects at import). */
function popularOf(ecosystem: Ecosystem): Popular {
  popularIndex ??= {
    npm: indexPopular(POPULAR_NPM, LOOKALIKES_NPM, "npm"),
    PyPI: indexPopular(POPULAR_PYPI, LOOKALIKES_PYPI, "PyPI"),
  };
  return popularIndex[ecosystem];
}

/**
 * Whether `a` and `b` are at Damerau-Levenshtein distance exactly 1, in linear time: one
 * insertion, deletion or substitution, or one swap of adjacent characters.
 */
export function isOneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true; // substitution
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2); // swap
  }
  // One insertion into the shorter: skip the extra character of the longer.
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/**
 * The popular name that `name` looks like a slip of, or null: null for a popular name itself,
 * a name on `allowNames`, or a name shorter than {@link TYPOSQUAT_MIN_LENGTH}.
 * @example
 * findTyposquatTarget("expresss", "npm"); // "express"
 * findTyposquatTarget("preact", "npm"); // null: popular in its own right
 */
export function findTyposquatTarget(
  name: string,
  ecosystem: Ecosystem,
  allowNames: readonly string[] = [],
): string | null {
  const canonical = canonicalName(name, ecosystem);
  if (canonical.length < TYPOSQUAT_MIN_LENGTH) return null;
  const popular = popularOf(ecosystem);
  if (popular.names.has(canonical)) return null;
  if (allowNames.some((allowed) => canonicalName(allowed, ecosystem) === canonical)) return null;
  const skeleton = skeletonOf(canonical);
  for (const p of popular.guarded) {
    if (p.skeleton === skeleton || isOneEditApart(canonical, p.name)) return p.name;
  }
  return null;
}
