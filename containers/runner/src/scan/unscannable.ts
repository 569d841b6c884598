/**
 * @module runner/scan/unscannable
 * Code a runtime can load or execute but no scanner or judge can read: compiled Python,
 * native libraries and addons, WebAssembly, Python zip applications, and any file whose first
 * bytes are an ELF, Mach-O, PE, WebAssembly or Python bytecode header, whatever its name. The
 * runner refuses a submission holding such a file (reason `unscannable-code`); the scanner lists
 * it as not scanned. Invariants: nothing here follows a link (lstat-based walk, O_NOFOLLOW
 * reads); only the first bytes of a file are read; no file is changed.
 */
import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import path from "node:path";

/** A file no scanner or judge can read, relative to the submission root with forward slashes. */
export interface UnscannableFile {
  file: string;
  /** Why: what the file is and how it was recognised (by its name or by its content). */
  reason: string;
}

/** What each name-recognised kind is; the runtimes load all of them as code. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  ".pyc": "compiled Python bytecode (.pyc)",
  ".pyo": "compiled Python bytecode (.pyo)",
  ".pyd": "a native Python extension (.pyd)",
  ".so": "a native shared library (.so)",
  ".dylib": "a native shared library (.dylib)",
  ".dll": "a native library (.dll)",
  ".node": "a native Node.js addon (.node)",
  ".wasm": "a WebAssembly module (.wasm)",
  ".pyz": "a Python zip application (.pyz)",
  ".pyzw": "a Python zip application (.pyzw)",
  ".egg": "a Python package archive (.egg), importable from sys.path",
  ".whl": "a Python package archive (.whl), importable from sys.path",
};

/** Versioned shared libraries: libfoo.so.1, libfoo.so.1.2.3. */
const VERSIONED_SO = /\.so(\.\d+)+$/i;

/** How many leading bytes are read to recognise a file by its content. */
export const HEAD_BYTES = 4096;

/** Why a file is unscannable code judging by its path alone, or null. */
export function unscannableByName(relPath: string): string | null {
  const parts = relPath.split("/");
  if (parts.slice(0, -1).includes("__pycache__")) {
    return "in a __pycache__ folder: compiled Python the interpreter can load";
  }
  const name = parts[parts.length - 1]!;
  const known = BY_EXTENSION[path.extname(name).toLowerCase()];
  if (known) return known;
  if (VERSIONED_SO.test(name)) return "a native shared library (.so.N)";
  return null;
}

/**
 * Why a file is unscannable code judging by its first bytes, or null. `peSignature` is the 4
 * bytes at the offset peSignatureOffset(head) gives, when the PE header starts past `head`.
 */
export function unscannableByContent(
  head: Uint8Array,
  peSignature?: Uint8Array | null,
): string | null {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.length >= 4) {
    const magic = b.readUInt32BE(0);
    if (magic === 0x7f454c46) return "an ELF executable or shared library (by its content)";
    if (magic === 0x0061736d) return "a WebAssembly module (by its content)";
    if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(magic)) {
      return "a Mach-O executable or library (by its content)";
    }
    if (magic === 0xcafebabe || magic === 0xcafebabf) {
      return "a Mach-O universal binary or a Java class file (by its content)";
    }
  }
  if (isPythonBytecode(b)) return "compiled Python bytecode (by its content)";
  if (isPortableExecutable(b, peSignature))
    return "a Windows PE executable or DLL (by its content)";
  return null;
}

/** The offset of a PE signature when `head` starts with a DOS header pointing past `head`. */
export function peSignatureOffset(head: Uint8Array): number | null {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.length < 0x40 || b[0] !== 0x4d || b[1] !== 0x5a) return null;
  const offset = b.readUInt32LE(0x3c);
  return offset + 4 > b.length ? offset : null;
}

/**
 * CPython's .pyc header: a 2-byte little-endian magic number followed by "\r\n", then flags,
 * timestamp or hash, and size, then the marshalled module code object (type 'c', or 0xe3 with
 * the reference flag). Python 3 magics are 3000–4095 today (3.11 is 3495, 3.13 is 3571). The
 * code-object check keeps a text file that happens to start with two bytes and CRLF out.
 */
function isPythonBytecode(b: Buffer): boolean {
  if (b.length < 9 || b[2] !== 0x0d || b[3] !== 0x0a) return false;
  const magic = b.readUInt16LE(0);
  if (magic < 3000 || magic > 4095) return false;
  // Header length: 16 bytes since 3.7, 12 in 3.3–3.6, 8 before.
  return [16, 12, 8].some((o) => o < b.length && (b[o] === 0x63 || b[o] === 0xe3));
}

/** "MZ" with the PE\0\0 signature where the DOS header's e_lfanew (at 0x3c) points. */
function isPortableExecutable(b: Buffer, peSignature?: Uint8Array | null): boolean {
  if (b.length < 0x40 || b[0] !== 0x4d || b[1] !== 0x5a) return false;
  const offset = b.readUInt32LE(0x3c);
  const sig =
    offset + 4 <= b.length ? b.subarray(offset, offset + 4) : (peSignature ?? new Uint8Array());
  return sig.length === 4 && sig[0] === 0x50 && sig[1] === 0x45 && sig[2] === 0 && sig[3] === 0;
}

/** End-of-central-directory records sit in the last 22 + 65535 bytes of a zip archive. */
const ZIP_TAIL_BYTES = 22 + 0xffff;

/**
 * Whether the bytes hold a zip archive: a local header at the start, or an end-of-central-
 * directory record near the end. Python reads a zip from its end, so text with a zip appended
 * still runs as a zip application (`python main.py`) or imports from sys.path.
 */
export function looksLikeZip(head: Uint8Array, tail: Uint8Array): boolean {
  const h = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (
    h.length >= 4 &&
    h[0] === 0x50 &&
    h[1] === 0x4b &&
    [0x0304, 0x0506].includes(h.readUInt16BE(2))
  ) {
    return true;
  }
  return Buffer.from(tail.buffer, tail.byteOffset, tail.byteLength).includes(ZIP_END_OF_DIRECTORY);
}

const ZIP_END_OF_DIRECTORY = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

/** Python source names: a zip under one of them runs as a zip application. */
const PYTHON_SOURCE = new Set([".py", ".pyw"]);
/** A "#!" first line naming a Python interpreter (how zipapp writes an executable archive). */
const PYTHON_SHEBANG = /^#![^\n]*\b(python|pypy)[\d.]*\b/;

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
    let reason = unscannableByContent(bytes, pe);
    if (!reason && zip && PYTHON_SOURCE.has(path.extname(absPath).toLowerCase())) {
      reason = "a zip archive named as Python source: Python runs it as a zip application";
    } else if (!reason && zip && PYTHON_SHEBANG.test(bytes.subarray(0, 200).toString("latin1"))) {
      reason = "a Python zip application (a #! line naming Python, then a zip archive)";
    }
    return { head: bytes, reason, zip };
  } finally {
    await handle.close();
  }
}

/**
 * Lists the files under `dir` that a runtime can load or execute but no scanner or judge can
 * read, sorted by path. Every folder is walked (dependency folders included: call it after
 * removing what the run will not use); links are never followed, and a link whose name marks
 * it as compiled or native code is listed too.
 */
export async function findUnscannableCode(dir: string): Promise<UnscannableFile[]> {
  const out: UnscannableFile[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        await walk(relPath);
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      const byName = unscannableByName(relPath);
      if (byName) {
        out.push({ file: relPath, reason: byName });
        continue;
      }
      if (!entry.isFile()) continue;
      const sniffed = await sniffFile(path.join(dir, relPath));
      if (sniffed?.reason) out.push({ file: relPath, reason: sniffed.reason });
    }
  };
  await walk("");
  return out;
}
