/**
 * @module archive/code-sniff
 * Code a runtime can load or execute but no scanner or judge can read: compiled Python, native
 * libraries and addons, WebAssembly, Python zip applications, and any file whose first bytes
 * are an ELF, Mach-O, PE, WebAssembly or Python bytecode header, whatever its name. Shared by
 * ingest (over an archive's streamed entries) and the runner (over unpacked files), so both
 * refuse the same submissions. Pure: bytes in, a reason out; no I/O. The sampler also runs the
 * UTF-8 check of source-encoding.ts over every byte, in constant memory.
 */
import { Utf8Validator } from "./source-encoding.ts";

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

/** End-of-central-directory records sit in the last 22 + 65535 bytes of a zip archive. */
export const ZIP_TAIL_BYTES = 22 + 0xffff;

/** Python source names: a zip under one of them runs as a zip application. */
const PYTHON_SOURCE = new Set([".py", ".pyw"]);
/** A "#!" first line naming a Python interpreter (how zipapp writes an executable archive). */
const PYTHON_SHEBANG = /^#![^\n]*\b(python|pypy)[\d.]*\b/;

/** The extension of a path's last segment, lower-cased, with its dot ("" when none). */
function extensionOf(relPath: string): string {
  const name = relPath.slice(relPath.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : "";
}

/** Why a file is unscannable code judging by its path alone, or null. */
export function unscannableByName(relPath: string): string | null {
  const parts = relPath.split("/");
  if (parts.slice(0, -1).includes("__pycache__")) {
    return "in a __pycache__ folder: compiled Python the interpreter can load";
  }
  const known = BY_EXTENSION[extensionOf(relPath)];
  if (known) return known;
  if (VERSIONED_SO.test(parts[parts.length - 1]!)) return "a native shared library (.so.N)";
  return null;
}

const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

/**
 * Why a file is unscannable code judging by its first bytes, or null. `peSignature` is the 4
 * bytes at the offset {@link peSignatureOffset} gives, when the PE header starts past `head`.
 */
export function unscannableByContent(
  head: Uint8Array,
  peSignature?: Uint8Array | null,
): string | null {
  if (head.length >= 4) {
    const magic = view(head).getUint32(0, false);
    if (magic === 0x7f454c46) return "an ELF executable or shared library (by its content)";
    if (magic === 0x0061736d) return "a WebAssembly module (by its content)";
    if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(magic)) {
      return "a Mach-O executable or library (by its content)";
    }
    if (magic === 0xcafebabe || magic === 0xcafebabf) {
      return "a Mach-O universal binary or a Java class file (by its content)";
    }
  }
  if (isPythonBytecode(head)) return "compiled Python bytecode (by its content)";
  if (isPortableExecutable(head, peSignature))
    return "a Windows PE executable or DLL (by its content)";
  return null;
}

/** The offset of a PE signature when `head` starts with a DOS header pointing past `head`. */
export function peSignatureOffset(head: Uint8Array): number | null {
  if (head.length < 0x40 || head[0] !== 0x4d || head[1] !== 0x5a) return null;
  const offset = view(head).getUint32(0x3c, true);
  return offset + 4 > head.length ? offset : null;
}

/**
 * CPython's .pyc header: a 2-byte little-endian magic number followed by "\r\n", then flags,
 * timestamp or hash, and size, then the marshalled module code object (type 'c', or 0xe3 with
 * the reference flag). Python 3 magics are 3000–4095 today (3.11 is 3495, 3.13 is 3571). The
 * code-object check keeps a text file that happens to start with two bytes and CRLF out.
 */
function isPythonBytecode(b: Uint8Array): boolean {
  if (b.length < 9 || b[2] !== 0x0d || b[3] !== 0x0a) return false;
  const magic = view(b).getUint16(0, true);
  if (magic < 3000 || magic > 4095) return false;
  // Header length: 16 bytes since 3.7, 12 in 3.3–3.6, 8 before.
  return [16, 12, 8].some((o) => o < b.length && (b[o] === 0x63 || b[o] === 0xe3));
}

/** "MZ" with the PE\0\0 signature where the DOS header's e_lfanew (at 0x3c) points. */
function isPortableExecutable(b: Uint8Array, peSignature?: Uint8Array | null): boolean {
  if (b.length < 0x40 || b[0] !== 0x4d || b[1] !== 0x5a) return false;
  const offset = view(b).getUint32(0x3c, true);
  const sig =
    offset + 4 <= b.length ? b.subarray(offset, offset + 4) : (peSignature ?? new Uint8Array());
  return sig.length === 4 && sig[0] === 0x50 && sig[1] === 0x45 && sig[2] === 0 && sig[3] === 0;
}

/** Whether `bytes` contains the 4-byte sequence `needle`. */
function includes(bytes: Uint8Array, needle: readonly number[]): boolean {
  outer: for (let i = 0; i + needle.length <= bytes.length; i += 1) {
    for (let j = 0; j < needle.length; j += 1) if (bytes[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * Whether the bytes hold a zip archive: a local header at the start, or an end-of-central-
 * directory record near the end. Python reads a zip from its end, so text with a zip appended
 * still runs as a zip application (`python main.py`) or imports from sys.path.
 */
export function looksLikeZip(head: Uint8Array, tail: Uint8Array): boolean {
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b) {
    const kind = view(head).getUint16(2, false);
    if (kind === 0x0304 || kind === 0x0506) return true;
  }
  return includes(tail, [0x50, 0x4b, 0x05, 0x06]);
}

/** What a file's bytes say: the first bytes, the last ones, and the PE signature if far. */
export interface FileSample {
  /** The first HEAD_BYTES bytes (fewer for a shorter file). */
  head: Uint8Array;
  /** The last ZIP_TAIL_BYTES bytes (the whole file when shorter). */
  tail: Uint8Array;
  /** The 4 bytes at {@link peSignatureOffset}, when it lies past `head`; else null. */
  peSignature: Uint8Array | null;
  /** The file's size in bytes (set by {@link FileSampler}). */
  size?: number;
  /** The offset of the first byte that is not UTF-8, -1 when none (set by {@link FileSampler}). */
  firstInvalidUtf8?: number;
}

/** Why a file is unscannable code, by its name or its sampled content; null when it is not. */
export function classifyFile(relPath: string, sample: FileSample | null): string | null {
  const byName = unscannableByName(relPath);
  if (byName || !sample) return byName;
  const byContent = unscannableByContent(sample.head, sample.peSignature);
  if (byContent) return byContent;
  if (!looksLikeZip(sample.head, sample.tail)) return null;
  if (PYTHON_SOURCE.has(extensionOf(relPath))) {
    return "a zip archive named as Python source: Python runs it as a zip application";
  }
  const firstLine = String.fromCharCode(...sample.head.subarray(0, 200));
  if (PYTHON_SHEBANG.test(firstLine)) {
    return "a Python zip application (a #! line naming Python, then a zip archive)";
  }
  return null;
}

/**
 * Samples a file as its bytes stream past, in bounded memory: the head, a rolling tail and the
 * PE signature bytes wherever the DOS header points.
 */
export class FileSampler {
  readonly #head = new Uint8Array(HEAD_BYTES);
  #headLength = 0;
  readonly #ring = new Uint8Array(ZIP_TAIL_BYTES);
  #written = 0;
  #peOffset: number | null = null;
  #pe: Uint8Array | null = null;
  readonly #utf8 = new Utf8Validator();

  /** Feeds the next chunk of the file. */
  push(chunk: Uint8Array): void {
    this.#utf8.push(chunk);
    const start = this.#written;
    if (this.#headLength < HEAD_BYTES) {
      const n = Math.min(HEAD_BYTES - this.#headLength, chunk.length);
      this.#head.set(chunk.subarray(0, n), this.#headLength);
      this.#headLength += n;
      if (this.#headLength === HEAD_BYTES || n < chunk.length)
        this.#peOffset = peSignatureOffset(this.#head.subarray(0, this.#headLength));
    }
    const pe = this.#peOffset;
    if (pe !== null && pe < start + chunk.length && pe + 4 > start) {
      this.#pe ??= new Uint8Array(0);
      const from = Math.max(pe, start) - start;
      const to = Math.min(pe + 4, start + chunk.length) - start;
      const merged = new Uint8Array(this.#pe.length + (to - from));
      merged.set(this.#pe);
      merged.set(chunk.subarray(from, to), this.#pe.length);
      this.#pe = merged;
    }
    const tailPart = chunk.subarray(Math.max(0, chunk.length - ZIP_TAIL_BYTES));
    for (let i = 0; i < tailPart.length;) {
      const at = (this.#written + (chunk.length - tailPart.length) + i) % ZIP_TAIL_BYTES;
      const n = Math.min(tailPart.length - i, ZIP_TAIL_BYTES - at);
      this.#ring.set(tailPart.subarray(i, i + n), at);
      i += n;
    }
    this.#written += chunk.length;
  }

  /** The sample of everything fed so far. */
  sample(): FileSample {
    const head = this.#head.slice(0, this.#headLength);
    if (this.#headLength < HEAD_BYTES) this.#peOffset = peSignatureOffset(head);
    const size = Math.min(this.#written, ZIP_TAIL_BYTES);
    const tail = new Uint8Array(size);
    const end = this.#written % ZIP_TAIL_BYTES;
    if (this.#written <= ZIP_TAIL_BYTES) tail.set(this.#ring.subarray(0, size));
    else {
      tail.set(this.#ring.subarray(end));
      tail.set(this.#ring.subarray(0, end), ZIP_TAIL_BYTES - end);
    }
    return {
      head,
      tail,
      peSignature: this.#peOffset === null ? null : this.#pe,
      size: this.#written,
      firstInvalidUtf8: this.#utf8.result(),
    };
  }
}
