/**
 * @module archive/canonical
 * The canonical hash of a submission's files: what "the code" is, independent of how it was
 * packed. Invariants: a function of the set of (relative path, file bytes) pairs only — never of
 * the archive format, entry order, timestamps, modes, compression or directory entries; paths
 * are compared by their UTF-8 bytes so every caller (workerd or Node) sorts them alike; a
 * duplicate or malformed path is refused rather than hashed; WebCrypto only, nothing thrown.
 */
import { err, ok, type Result } from "@bouts/result";

/** Tag hashed first, so a change of the format is a change of every hash. */
export const CANONICAL_FILES_VERSION = "bouts-files/v1";

/** One file as the run uses it: its path relative to the submission's root, and its bytes. */
export interface CanonicalFile {
  /** `a/b.mjs`: forward slashes, no leading `/`, no `.` or `..` segment, no NUL or newline. */
  path: string;
  bytes: Uint8Array;
}

/** Why a list of files has no canonical hash. */
export interface CanonicalFilesError {
  reason: "bad-path" | "duplicate-path";
  path: string;
}

const encoder = new TextEncoder();

function hex(buf: ArrayBuffer): string {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function validPath(p: unknown): p is string {
  if (typeof p !== "string" || p.length === 0 || p.length > 4096) return false;
  if (p.includes("\0") || p.includes("\n") || p.includes("\\") || p.startsWith("/")) return false;
  return p.split("/").every((s) => s !== "" && s !== "." && s !== "..");
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * sha256 (hex) over `bouts-files/v1\n` followed by one line `<path>\0<sha256 of the bytes>\n`
 * per file, in the UTF-8 byte order of the paths. The same files give the same hash however
 * they were archived; a renamed file or one changed byte gives another.
 * @example await canonicalFilesSha256([{ path: "merge.mjs", bytes }]) // ok("3f…")
 */
export async function canonicalFilesSha256(
  files: readonly CanonicalFile[],
): Promise<Result<string, CanonicalFilesError>> {
  const rows: { key: Uint8Array; path: string; bytes: Uint8Array }[] = [];
  for (const f of files) {
    const p: unknown = f.path;
    if (!validPath(f.path))
      return err({
        reason: "bad-path",
        path: typeof p === "string" ? p.slice(0, 200) : "(not a string)",
      });
    rows.push({ key: encoder.encode(f.path), path: f.path, bytes: f.bytes });
  }
  rows.sort((a, b) => compareBytes(a.key, b.key));
  for (let i = 1; i < rows.length; i++)
    if (compareBytes(rows[i - 1]!.key, rows[i]!.key) === 0)
      return err({ reason: "duplicate-path", path: rows[i]!.path.slice(0, 200) });
  const lines: string[] = [`${CANONICAL_FILES_VERSION}\n`];
  for (const r of rows) {
    const digest = hex(await crypto.subtle.digest("SHA-256", r.bytes as Uint8Array<ArrayBuffer>));
    lines.push(`${r.path}\0${digest}\n`);
  }
  return ok(hex(await crypto.subtle.digest("SHA-256", encoder.encode(lines.join("")))));
}
