/**
 * @module runner/run/judge-packet
 * Reads what the judges need from an unpacked submission: its source files and its
 * deliverables, as bounded UTF-8 text. Invariants: only regular files found with lstat-based
 * listing (no link is followed), never the submission's tests/ folder (the hidden tests
 * replace it), and never more than SOURCE_PACKET_LIMITS.
 */
import path from "node:path";
import { SOURCE_PACKET_LIMITS, type SourceFile } from "@bouts/contracts";
import { listFiles, readTextPrefix } from "./files.ts";

const SOURCE_EXT = /\.(?:[cm]?[jt]sx?|py|sql|html?)$/i;

/** The submission's source files, sorted by path, within the packet limits. */
export function collectSources(submissionDir: string): SourceFile[] {
  const out: SourceFile[] = [];
  let total = 0;
  for (const rel of listFiles(submissionDir)) {
    if (out.length >= SOURCE_PACKET_LIMITS.files) break;
    if (!SOURCE_EXT.test(rel) || rel === "tests" || rel.startsWith("tests/")) continue;
    const room = Math.min(SOURCE_PACKET_LIMITS.fileBytes, SOURCE_PACKET_LIMITS.totalBytes - total);
    if (room <= 0) break;
    const read = readTextPrefix(path.join(submissionDir, rel), room);
    if (!read) continue;
    // Cut back to whole characters: the byte budget applies to the UTF-8 text.
    let content = read.text;
    while (Buffer.byteLength(content) > room) content = content.slice(0, -1);
    out.push({ path: rel, content, truncated: read.truncated });
    total += Buffer.byteLength(content);
  }
  return out;
}
