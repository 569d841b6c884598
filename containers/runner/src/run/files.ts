/**
 * @module runner/run/files
 * Reading an unpacked tree without following links: lists its regular files and reads a
 * bounded text prefix of one. Invariants: readdir entries are typed without stat-following
 * (a link is neither a directory nor a file here), and a file is opened with O_NOFOLLOW.
 * A leaf: imports nothing of the runner's own.
 */
import { closeSync, constants, openSync, readdirSync, readSync } from "node:fs";
import path from "node:path";

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
