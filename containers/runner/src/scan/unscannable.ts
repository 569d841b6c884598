/**
 * @module runner/scan/unscannable
 * Code a runtime can load or execute but no scanner or judge can read: compiled Python, native
 * libraries and addons, WebAssembly, Python zip applications, and any file with an ELF, Mach-O,
 * PE, WebAssembly or Python bytecode header, whatever its name (@bouts/archive's code-sniff.ts).
 * Also source an interpreter would decode otherwise than the scanners read it (a coding
 * declaration other than UTF-8, a UTF-16/32 byte order mark, bytes that are not UTF-8:
 * @bouts/archive's source-encoding.ts). Invariants: nothing here follows a link (lstat-based
 * walk, O_NOFOLLOW reads); only the first and last bytes of a file are read, except that a file
 * an interpreter may load as source is read whole, in bounded chunks, for the UTF-8 check; no
 * file is changed.
 */
import { constants, type Dirent } from "node:fs";
import { open, readdir } from "node:fs/promises";
import path from "node:path";
import {
  checkSourceEncoding,
  classifyFile,
  HEAD_BYTES,
  isInterpreterSource,
  Utf8Validator,
  looksLikeZip,
  peSignatureOffset,
  unscannableByName,
  ZIP_TAIL_BYTES,
} from "@bouts/archive";

export {
  HEAD_BYTES,
  looksLikeZip,
  peSignatureOffset,
  unscannableByContent,
  unscannableByName,
} from "@bouts/archive";

/** A file no scanner or judge can read, relative to the submission root with forward slashes. */
export interface UnscannableFile {
  file: string;
  /** Why: what the file is and how it was recognised (by its name or by its content). */
  reason: string;
}

export interface SniffedFile {
  /** The first HEAD_BYTES bytes (fewer for a shorter file). */
  head: Buffer;
  /** Why the file is unscannable code (a binary by content, or a zip named as Python), or null. */
  reason: string | null;
  /** Whether the file holds a zip archive (Python can import code from it). */
  zip: boolean;
}

/**
 * Reads the first HEAD_BYTES and the last bytes of a regular file (never through a link) and
 * judges its content. Null when the file cannot be opened as a regular file.
 */
export async function sniffFile(absPath: string): Promise<SniffedFile | null> {
  let handle;
  try {
    // O_NONBLOCK: a FIFO put in place of a file must not hang the walk.
    handle = await open(absPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return null;
    const size = stat.size;
    const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const bytes = head.subarray(0, bytesRead);
    const peOffset = peSignatureOffset(bytes);
    let pe: Buffer | null = null;
    if (peOffset !== null) {
      pe = Buffer.alloc(4);
      const r = await handle.read(pe, 0, 4, peOffset);
      pe = pe.subarray(0, r.bytesRead);
    }
    let tail = bytes;
    if (size > bytes.length) {
      const start = Math.max(0, size - ZIP_TAIL_BYTES);
      const buf = Buffer.alloc(size - start);
      const r = await handle.read(buf, 0, buf.length, start);
      tail = buf.subarray(0, r.bytesRead);
    }
    const zip = looksLikeZip(bytes, tail);
    // Callers judge the full relative path by name first; here the file name is enough.
    const reason = classifyFile(path.basename(absPath), { head: bytes, tail, peSignature: pe });
    return { head: bytes, reason, zip };
  } finally {
    await handle.close();
  }
}

/**
 * Lists the files under `dir` that a runtime can load or execute but no scanner or judge can
 * read, sorted by path. Every folder is walked (dependency folders included: call it after
 * removing what the run will not use); links are never followed, and a link whose name marks
 * it as compiled or native code is listed too. The runner refuses a submission holding such a file
 * (reason `unscannable-code`), and the scanner lists it as not scanned; ingest applies the same
 * rules to an upload before it is stored.
 */
export async function findUnscannableCode(dir: string): Promise<UnscannableFile[]> {
  return walkSorted(dir, async (entry, relPath) => {
    if (!entry.isFile() && !entry.isSymbolicLink()) return null;
    const byName = unscannableByName(relPath);
    if (byName) return byName;
    if (!entry.isFile()) return null;
    return (await sniffFile(path.join(dir, relPath)))?.reason ?? null;
  });
}

/**
 * Walks `dir` in sorted order, never following links, and lists every entry other than a folder
 * for which `judge` gives a reason.
 */
async function walkSorted(
  dir: string,
  judge: (entry: Dirent, relPath: string) => Promise<string | null>,
): Promise<UnscannableFile[]> {
  const out: UnscannableFile[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(relPath);
      else {
        const reason = await judge(entry, relPath);
        if (reason) out.push({ file: relPath, reason });
      }
    }
  };
  await walk("");
  return out;
}

/** Bytes read at a time by the UTF-8 check. */
const ENCODING_CHUNK_BYTES = 64 * 1024;

/**
 * Why a regular file's encoding is not what the scanners read (the rule `source-encoding`), or
 * null: only files an interpreter may load as source are judged, each read whole in 64 KiB
 * chunks (never through a link).
 */
export async function checkFileEncoding(absPath: string, relPath: string): Promise<string | null> {
  let handle;
  try {
    handle = await open(absPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return null;
    const buf = Buffer.alloc(ENCODING_CHUNK_BYTES);
    const validator = new Utf8Validator();
    let head: Buffer | null = null;
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, size);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      if (head === null) {
        head = Buffer.from(chunk.subarray(0, HEAD_BYTES));
        if (!isInterpreterSource(relPath, head)) return null;
      }
      validator.push(chunk);
      size += bytesRead;
      if (validator.firstInvalid >= 0) break;
    }
    return checkSourceEncoding(relPath, {
      head: head ?? Buffer.alloc(0),
      size,
      firstInvalidUtf8: validator.result(),
    });
  } finally {
    await handle.close();
  }
}

/**
 * Lists the files under `dir` whose encoding an interpreter would read otherwise than the
 * scanners (see {@link checkFileEncoding}), sorted by path; links are not followed. The runner
 * refuses a submission holding one (reason `source-encoding`), as ingest does.
 */
export async function findSourceEncodingProblems(dir: string): Promise<UnscannableFile[]> {
  return walkSorted(dir, (entry, relPath) =>
    entry.isFile() ? checkFileEncoding(path.join(dir, relPath), relPath) : Promise.resolve(null),
  );
}
