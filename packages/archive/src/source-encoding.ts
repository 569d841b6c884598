/**
 * @module archive/source-encoding
 * The scanners and the judges read source as UTF-8; an interpreter that decodes the same bytes
 * otherwise runs code nobody read (a Python `# coding: utf-7` cookie turns a comment into
 * statements). So a file an interpreter could load must be UTF-8 (ASCII is UTF-8) as the
 * scanner reads it: no PEP 263 coding declaration naming any other codec, no UTF-16/UTF-32 byte
 * order mark, and no byte sequence that is not UTF-8 anywhere in the file. Shared by ingest
 * (over streamed entries) and the runner (over unpacked files), so both refuse the same
 * submissions with the rule `source-encoding`. Invariants: pure (bytes in, a reason out, no
 * I/O); memory is constant per file (a UTF-8 state machine, no decoded text is kept); an
 * allow-list, never a deny-list, decides which codec names pass.
 */

/**
 * Files an interpreter may load as source, by extension: JavaScript and TypeScript (Node strips
 * types), Python, and JSON (which a module may import). Other files are data until a module
 * loads them as code, which the scanner reports as unscanned (docs/security-scanning.md).
 */
const SOURCE_EXTENSIONS: ReadonlySet<string> = new Set([
  ".js",
  ".cjs",
  ".mjs",
  ".jsx",
  ".ts",
  ".cts",
  ".mts",
  ".tsx",
  ".py",
  ".pyw",
  ".pyi",
  ".json",
]);

/** Extensions Python reads with PEP 263 coding declarations. */
const PYTHON_EXTENSIONS: ReadonlySet<string> = new Set([".py", ".pyw", ".pyi"]);

/** A "#!" first line naming an interpreter whose source we scan, whatever the file's name. */
const SCRIPT_SHEBANG =
  /^#![^\n]*\b(node|nodejs|tsx|ts-node|ts-node-esm|bun|deno|python[\d.]*|pypy[\d.]*)\b/;
/** The same, for Python only (coding declarations apply). */
const PYTHON_SHEBANG = /^#![^\n]*\b(python|pypy)[\d.]*\b/;

/**
 * A PEP 263 declaration, as CPython's tokenizer and `tokenize.detect_encoding` find it: a line
 * that is only a comment, holding `coding` then `:` or `=`, optional blanks, then a codec name.
 */
const CODING_COOKIE = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;

/**
 * Codec names that decode as UTF-8 or ASCII, after the normalization Python's codec registry
 * applies (lower case, every run of other characters than letters, digits and "." as "_").
 * `utf_8_sig` strips a UTF-8 byte order mark and is otherwise UTF-8. Anything else is refused,
 * latin-1 included: its bytes 0x80–0xFF decode to other text than the scanner reads.
 */
const UTF8_CODECS: ReadonlySet<string> = new Set([
  "utf_8",
  "utf8",
  "u8",
  "utf",
  "utf8_ucs2",
  "utf8_ucs4",
  "cp65001",
  "utf_8_sig",
  "utf8_sig",
  "ascii",
  "us_ascii",
  "us",
  "646",
  "ansi_x3.4_1968",
  "ansi_x3_4_1968",
  "ansi_x3.4_1986",
  "cp367",
  "csascii",
  "ibm367",
  "iso646_us",
  "iso_646.irv_1991",
  "iso_ir_6",
]);

/** How many bytes of a line the coding check reads (Python's cookie is on line 1 or 2). */
const COOKIE_LINE_BYTES = 1024;

/** The extension of a path's last segment, lower-cased, with its dot ("" when none). */
function extensionOf(relPath: string): string {
  const name = relPath.slice(relPath.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : "";
}

/** Bytes as one char per byte (Latin-1), for matching ASCII syntax in bytes of any encoding. */
function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 1) s += String.fromCharCode(bytes[i]!);
  return s;
}

/** Whether an interpreter may load the file as source: by its extension or its `#!` line. */
export function isInterpreterSource(relPath: string, head: Uint8Array): boolean {
  if (SOURCE_EXTENSIONS.has(extensionOf(relPath))) return true;
  return SCRIPT_SHEBANG.test(latin1(head.subarray(0, 200)));
}

/** Normalizes a codec name the way Python's `encodings.normalize_encoding` and lookup do. */
export function normalizeCodecName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/**
 * A streaming UTF-8 validator (Unicode Table 3-7: no overlong forms, no surrogates, nothing past
 * U+10FFFF). Feed chunks in order; `firstInvalid` is the byte offset where the first invalid
 * sequence starts, or -1 while the bytes are valid. Constant memory.
 */
export class Utf8Validator {
  #offset = 0;
  #need = 0;
  #lo = 0x80;
  #hi = 0xbf;
  #sequenceStart = 0;
  /** Where the first invalid sequence was found; -1 while none was. */
  firstInvalid = -1;

  /** Feeds the next chunk. */
  push(chunk: Uint8Array): void {
    if (this.firstInvalid >= 0) {
      this.#offset += chunk.length;
      return;
    }
    for (let i = 0; i < chunk.length; i += 1) {
      const b = chunk[i]!;
      if (this.#need > 0) {
        if (b < this.#lo || b > this.#hi) {
          this.firstInvalid = this.#sequenceStart;
          break;
        }
        this.#need -= 1;
        this.#lo = 0x80;
        this.#hi = 0xbf;
        continue;
      }
      if (b <= 0x7f) continue;
      this.#sequenceStart = this.#offset + i;
      if (b >= 0xc2 && b <= 0xdf) this.#need = 1;
      else if (b === 0xe0) [this.#need, this.#lo] = [2, 0xa0];
      else if (b === 0xed) [this.#need, this.#hi] = [2, 0x9f];
      else if (b >= 0xe1 && b <= 0xef) this.#need = 2;
      else if (b === 0xf0) [this.#need, this.#lo] = [3, 0x90];
      else if (b === 0xf4) [this.#need, this.#hi] = [3, 0x8f];
      else if (b >= 0xf1 && b <= 0xf3) this.#need = 3;
      else {
        this.firstInvalid = this.#offset + i;
        break;
      }
    }
    this.#offset += chunk.length;
  }

  /**
   * The verdict on everything fed so far, taken as the whole file: the offset of the first
   * invalid byte (a sequence cut short at the end counts), or -1 when the bytes are UTF-8.
   */
  result(): number {
    if (this.firstInvalid < 0 && this.#need > 0) return this.#sequenceStart;
    return this.firstInvalid;
  }
}

/** What the encoding rule needs of a file: its first bytes, its size, its UTF-8 validity. */
export interface EncodingSample {
  /** The file's first bytes (at least the first two lines when they are short). */
  head: Uint8Array;
  /** The file's size in bytes. */
  size: number;
  /** The byte offset of the first sequence that is not UTF-8, or -1 when the file is UTF-8. */
  firstInvalidUtf8: number;
}

/** The codec a PEP 263 declaration names in the first two lines of `head`, if any (raw). */
export function findCodingCookies(head: Uint8Array): string[] {
  let text = latin1(head.subarray(0, 2 * COOKIE_LINE_BYTES + 4));
  if (text.startsWith("\xef\xbb\xbf")) text = text.slice(3);
  const lines = text.split(/\r\n|\r|\n/).slice(0, 2);
  const out: string[] = [];
  for (const line of lines) {
    const m = CODING_COOKIE.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

/**
 * Why the file's encoding is not what the scanners read, or null: for a file an interpreter may
 * load as source (see {@link isInterpreterSource}), a UTF-16/UTF-32 byte order mark, bytes that
 * are not UTF-8, or (Python) a coding declaration naming a codec other than UTF-8 or ASCII, or
 * first lines too long for the declaration check to see whole.
 */
export function checkSourceEncoding(relPath: string, sample: EncodingSample): string | null {
  const { head, size, firstInvalidUtf8 } = sample;
  if (!isInterpreterSource(relPath, head)) return null;
  const bom = byteOrderMark(head);
  if (bom) {
    return `starts with a ${bom} byte order mark: the scanners and judges read source as UTF-8`;
  }
  const python =
    PYTHON_EXTENSIONS.has(extensionOf(relPath)) ||
    PYTHON_SHEBANG.test(latin1(head.subarray(0, 200)));
  if (python) {
    for (const cookie of findCodingCookies(head)) {
      if (!UTF8_CODECS.has(normalizeCodecName(cookie))) {
        return (
          `declares the source encoding ${JSON.stringify(cookie.slice(0, 40))} (PEP 263 coding ` +
          `declaration): Python would decode other text than the scanners and judges read as UTF-8`
        );
      }
    }
    if (cutOffCommentLine(head, size)) {
      return (
        `a comment in its first two lines runs past ${COOKIE_LINE_BYTES * 2} bytes, so a ` +
        `coding declaration in it cannot be checked`
      );
    }
  }
  if (firstInvalidUtf8 >= 0) {
    return (
      `is not valid UTF-8 (first invalid byte at offset ${firstInvalidUtf8}): the scanners ` +
      `and judges read source as UTF-8, and an interpreter may decode it otherwise`
    );
  }
  return null;
}

/**
 * Whether one of the first two lines is a comment (where a coding declaration can be) that does
 * not end within the bytes the cookie check reads, while the file goes on past them.
 */
function cutOffCommentLine(head: Uint8Array, size: number): boolean {
  const window = latin1(head.subarray(0, 2 * COOKIE_LINE_BYTES + 4));
  if (size <= window.length) return false;
  const lines = window.split(/\r\n|\r|\n/);
  // The last piece of the window is the line that does not end within it.
  const open = lines.length - 1;
  return open < 2 && /^(\xef\xbb\xbf)?[ \t\f]*#/.test(lines[open]!);
}

/** The name of a UTF-16 or UTF-32 byte order mark at the start of `b`, or null. */
function byteOrderMark(b: Uint8Array): string | null {
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0)
    return "UTF-32 (little-endian)";
  if (b.length >= 4 && b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff)
    return "UTF-32 (big-endian)";
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return "UTF-16 (little-endian)";
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return "UTF-16 (big-endian)";
  return null;
}
