/**
 * @module telemetry/text
 * Small deterministic string helpers shared by the parsers and extractors: UTF-8 length,
 * a 64-bit FNV-1a digest, bounded quoting for citations, path normalisation and globs.
 * Pure: no I/O, no platform APIs.
 */

/** UTF-8 byte length of a string, computed without allocating. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;

/**
 * A stable 64-bit FNV-1a digest of a string's UTF-16 code units, as `fnv1a64:<16 hex>`.
 * Not cryptographic: it only decides whether two tool calls had identical arguments.
 * @example digestText("{}") // "fnv1a64:…"
 */
export function digestText(s: string): string {
  let h = FNV_OFFSET;
  for (let i = 0; i < s.length; i++) {
    h ^= BigInt(s.charCodeAt(i));
    h = (h * FNV_PRIME) & MASK_64;
  }
  return `fnv1a64:${h.toString(16).padStart(16, "0")}`;
}

/** Cuts a string to `max` characters, marking the cut with "…". */
export function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, Math.max(0, max - 1))}…`;
}

/** JSON-quotes a clipped, single-line rendering of `s` (for citations and summaries). */
export function quote(s: string, max = 120): string {
  return JSON.stringify(clip(s.replace(/\s+/g, " ").trim(), max));
}

/** The sentences of a text: split at line breaks and sentence ends. */
export function splitSentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z0-9"'`(])/)
    .map((s) => s.replace(/^[\s*>#-]+/, "").trim())
    .filter((s) => s.length > 0);
}

/**
 * The ids of `ids` that a text mentions as whole tokens (not inside a longer id), in the order of
 * `ids`.
 * @example findMentionedIds("auth-expiry still fails", ["auth", "auth-expiry"]) // ["auth-expiry"]
 */
export function findMentionedIds(text: string, ids: readonly string[]): string[] {
  const found: string[] = [];
  for (const id of ids) {
    if (id === "") continue;
    let from = 0;
    for (;;) {
      const at = text.indexOf(id, from);
      if (at === -1) break;
      const before = text.charAt(at - 1);
      const after = text.charAt(at + id.length);
      if (!/[A-Za-z0-9_-]/.test(before) && !/[A-Za-z0-9_-]/.test(after)) {
        found.push(id);
        break;
      }
      from = at + 1;
    }
  }
  return found;
}

/** Normalises a path: backslashes to "/", strips `root` and any leading "./", collapses "//". */
export function normalizePath(p: string, root = ""): string {
  let s = p.replace(/\\/g, "/").replace(/\/{2,}/g, "/");
  const r = root.replace(/\\/g, "/").replace(/\/+$/, "");
  if (r !== "" && (s === r || s.startsWith(`${r}/`))) s = s.slice(r.length + 1);
  while (s.startsWith("./")) s = s.slice(2);
  return s;
}

/**
 * Compiles a glob anchored at the workspace root: `**` matches any number of path segments,
 * `*` any characters within one segment, `?` one character. Everything else is literal.
 * @example globToRegExp("tests/**").test("tests/unit/a.test.ts") // true
 */
export function globToRegExp(glob: string): RegExp {
  const g = normalizePath(glob);
  let re = "";
  for (let i = 0; i < g.length; i++) {
    const c = g.charAt(i);
    if (c === "*" && g.charAt(i + 1) === "*") {
      const slash = g.charAt(i + 2) === "/";
      re += slash ? "(?:[^/]*/)*" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/**
 * Compiles a list of globs once; the matcher returns the first glob that matches a
 * normalised path, or null.
 */
export function compileGlobs(globs: readonly string[]): (path: string) => string | null {
  const compiled = globs.map((g) => [g, globToRegExp(g)] as const);
  return (path) => {
    for (const [g, re] of compiled) if (re.test(path)) return g;
    return null;
  };
}
