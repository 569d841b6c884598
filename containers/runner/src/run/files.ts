/**
 * @module runner/run/files
 * Reading an unpacked tree without following links: lists its regular files, reads a
 * bounded text prefix of one, and hashes the tree canonically. Invariants: readdir entries are typed without stat-following
 * (a link is neither a directory nor a file here), and a file is opened with O_NOFOLLOW.
 * A leaf: imports nothing of the runner's own.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import path from "node:path";
import { canonicalFilesSha256, type CanonicalFile } from "@bouts/archive";

/** Lists regular files under `dir` (relative paths), never descending into links. */
export function listFiles(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(dir, rel));
    else if (e.isFile()) out.push(rel);
  }
  return out.sort();
}

/** A tree's canonical hash and each file's own sha256 (hex), by relative path, in path order. */
export interface TreeDigests {
  sha256: string;
  files: { path: string; sha256: string }[];
}

/**
 * The canonical hash (`@bouts/archive` canonicalFilesSha256) of every regular file under `dir`,
 * and each file's sha256 (what a trace's file digests are checked against, docs/design.md §40),
 * read without following links; null when a file cannot be read whole or the total passes
 * `maxBytes` (the unpacker's own cap, so an unpacked tree always fits).
 */
export async function hashTree(dir: string, maxBytes: number): Promise<TreeDigests | null> {
  const files: CanonicalFile[] = [];
  let total = 0;
  for (const rel of listFiles(dir)) {
    let fd: number;
    try {
      fd = openSync(path.join(dir, rel), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return null;
    }
    try {
      const size = fstatSync(fd).size;
      total += size;
      if (total > maxBytes) return null;
      const bytes = new Uint8Array(size);
      let off = 0;
      while (off < size) {
        const n = readSync(fd, bytes, off, size - off, off);
        if (n === 0) return null;
        off += n;
      }
      files.push({ path: rel, bytes });
    } finally {
      closeSync(fd);
    }
  }
  const hashed = await canonicalFilesSha256(files);
  if (!hashed.ok) return null;
  const digests: TreeDigests["files"] = [];
  for (const f of files) {
    const d = await crypto.subtle.digest("SHA-256", f.bytes);
    digests.push({ path: f.path, sha256: Buffer.from(d).toString("hex") });
  }
  return { sha256: hashed.value, files: digests };
}

/** Reads at most `max` bytes of a regular file without following a link; null if not text. */
export function readTextPrefix(
  file: string,
  max: number,
): { text: string; truncated: boolean } | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(max + 1);
    const n = readSync(fd, buf, 0, max + 1, 0);
    const bytes = buf.subarray(0, Math.min(n, max));
    if (bytes.includes(0)) return null;
    return { text: new TextDecoder().decode(bytes), truncated: n > max };
  } finally {
    closeSync(fd);
  }
}
