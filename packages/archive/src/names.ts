/**
 * @module archive/names
 * Entry names: strict UTF-8 decoding, normalization to a relative POSIX path, the byte limits
 * on segments and paths, and the admission of names (count, depth, collisions after NFC and
 * case folding). Invariants: an admitted path has no empty, `.` or `..` segment, no NUL,
 * backslash, drive letter, control or bidi character, and fits the byte limits. Pure.
 */
import type { ArchiveLimits } from "./limits.ts";
import { buildRefusal, type ArchiveRefusal } from "./refusal.ts";
import { err, ok, type Result } from "@bouts/result";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
const LOSSY_UTF8 = new TextDecoder("utf-8");
const ENCODER = new TextEncoder();

/** Decodes a stored name as strict UTF-8; invalid bytes are refused (named lossily). */
export function decodeEntryName(bytes: Uint8Array): Result<string, ArchiveRefusal> {
  try {
    return ok(STRICT_UTF8.decode(bytes));
  } catch {
    return err(
      buildRefusal("invalid-name-encoding", LOSSY_UTF8.decode(bytes), "bytes are not UTF-8"),
    );
  }
}

/** Counts the UTF-8 bytes of a string. */
export function countUtf8Bytes(s: string): number {
  return ENCODER.encode(s).length;
}

/** Whether a name is the root folder itself (`.`, `./`, `././`). */
export function isRootName(raw: string): boolean {
  return /^\.(\/+\.?)*\/*$/.test(raw);
}

// C0, DEL, C1, and the marks that reorder text (LRM, RLM, ALM, embeddings, isolates).
function findUnsafeChar(s: string): number | null {
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (
      c < 0x20 ||
      (c >= 0x7f && c <= 0x9f) ||
      c === 0x200e ||
      c === 0x200f ||
      c === 0x061c ||
      (c >= 0x202a && c <= 0x202e) ||
      (c >= 0x2066 && c <= 0x2069)
    )
      return c;
  }
  return null;
}

/**
 * Normalizes a stored name to a safe relative POSIX path (leading `./` and trailing `/`
 * stripped), or says which rule it breaks. Depth and collisions are checked at admission.
 * @example normalizeEntryPath("./src/a.ts", DEFAULT_ARCHIVE_LIMITS) // ok("src/a.ts")
 */
export function normalizeEntryPath(
  raw: string,
  limits: Pick<ArchiveLimits, "maxSegmentBytes" | "maxPathBytes">,
): Result<string, ArchiveRefusal> {
  const unsafe = (detail: string) => err(buildRefusal("unsafe-path", raw, detail));
  if (raw.includes("\0")) return unsafe("contains NUL");
  const bad = findUnsafeChar(raw);
  if (bad !== null) {
    const hex = bad.toString(16).toUpperCase().padStart(4, "0");
    return err(buildRefusal("unsafe-name", raw, `contains U+${hex}`));
  }
  if (raw.includes("\\")) return unsafe("contains a backslash");
  if (raw.startsWith("/")) return unsafe("absolute path");
  if (/^[A-Za-z]:/.test(raw)) return unsafe("drive-letter path");
  let name = raw;
  while (name.startsWith("./")) name = name.slice(2);
  name = name.replace(/\/+$/, "");
  if (name === "" || name === ".") return unsafe("empty name");
  for (const s of name.split("/")) {
    if (s === "..") return unsafe("parent-folder segment");
    if (s === "" || s === ".") return unsafe("empty or '.' segment");
    const bytes = countUtf8Bytes(s);
    if (bytes > limits.maxSegmentBytes) {
      return err(
        buildRefusal("name-too-long", raw, `a segment is ${bytes} bytes`, {
          limit: limits.maxSegmentBytes,
        }),
      );
    }
  }
  const bytes = countUtf8Bytes(name);
  if (bytes > limits.maxPathBytes) {
    return err(
      buildRefusal("name-too-long", raw, `the path is ${bytes} bytes`, {
        limit: limits.maxPathBytes,
      }),
    );
  }
  return ok(name);
}

/** Folds a name so that names one disk would merge compare equal (NFC, then case folding). */
function foldName(name: string): string {
  // Upper then lower approximates full case folding: "ß" → "ss", "ſ" → "s", "ς" → "σ".
  return name.normalize("NFC").toUpperCase().toLowerCase().normalize("NFC");
}

const ARCHIVE_EXTENSIONS =
  /\.(zip|tar|gz|tgz|bz2|tbz2?|xz|txz|zst|7z|rar|jar|war|ear|whl|egg|apk|cab|lz|lzma)$/i;

/** Whether a file name has the extension of an archive format. */
export function hasArchiveExtension(path: string): boolean {
  return ARCHIVE_EXTENSIONS.test(path);
}

type Kind = "file" | "dir";

/** Admits entries one by one; both formats share it so the rules cannot drift. */
export class NameAdmission {
  readonly #limits: ArchiveLimits;
  readonly #seen = new Map<string, { name: string; kind: Kind }>();
  entries = 0;

  constructor(limits: ArchiveLimits) {
    this.#limits = limits;
  }

  /** Counts one entry; refuses past the entry limit. */
  count(raw: string): ArchiveRefusal | null {
    this.entries += 1;
    if (this.entries > this.#limits.maxEntries) {
      return buildRefusal("too-many-entries", raw, `entry number ${this.entries}`, {
        limit: this.#limits.maxEntries,
      });
    }
    return null;
  }

  /** Validates a name and its place among earlier names; returns the normalized path. */
  admit(raw: string, kind: Kind): Result<string, ArchiveRefusal> {
    const normalized = normalizeEntryPath(raw, this.#limits);
    if (!normalized.ok) return normalized;
    const rel = normalized.value;
    const segments = rel.split("/");
    if (segments.length > this.#limits.maxDepth) {
      return err(
        buildRefusal("too-deep", rel, `${segments.length} levels`, {
          limit: this.#limits.maxDepth,
        }),
      );
    }
    if (kind === "file" && hasArchiveExtension(rel)) {
      return err(buildRefusal("nested-archive", rel, "archive file extension"));
    }
    // Parents are implicit folders: a file named like one of them is a collision.
    for (let i = 1; i <= segments.length; i += 1) {
      const name = segments.slice(0, i).join("/");
      const key = foldName(name);
      const k: Kind = i === segments.length ? kind : "dir";
      const prior = this.#seen.get(key);
      if (!prior) {
        this.#seen.set(key, { name, kind: k });
        continue;
      }
      // The same folder twice is harmless; a second file, a file over a folder, or a variant
      // that one disk would merge (case, Unicode normalization) is refused.
      if (prior.name !== name || prior.kind === "file" || k === "file") {
        const how = prior.name === name ? "same name" : "same name after NFC and case folding";
        return err(buildRefusal("duplicate-entry", rel, how, { clashesWith: prior.name }));
      }
    }
    return ok(rel);
  }
}
