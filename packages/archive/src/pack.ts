/**
 * @module archive/pack
 * Writes a tar stream (ustar headers, GNU `L` records for names over 100 bytes) from a list of
 * files, for callers that hold a submission as a map of path to content (the platform's MCP
 * `submit` tool, the CLI's packer): the caller gzips it and submits it like any upload, so the
 * validator (`readArchive`, `checkAdmission`) judges it exactly as it judges a hand-made
 * archive. Invariants: the writer checks nothing a validator checks (names are written as
 * given), so there is one set of rules; output is deterministic (mtime 0, uid/gid 0, mode
 * 0644, files in the order given). Pure.
 */

/** One file of a tar stream to write. */
export interface PackedFile {
  /** Its path inside the archive, as the validator will read it. */
  path: string;
  /** Its bytes. */
  data: Uint8Array;
}

const BLOCK = 512;
const ENCODER = new TextEncoder();

function writeAscii(h: Uint8Array, offset: number, text: string): void {
  for (let i = 0; i < text.length; i++) h[offset + i] = text.charCodeAt(i) & 0xff;
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

function header(name: Uint8Array, size: number, type: "0" | "L"): Uint8Array {
  const h = new Uint8Array(BLOCK);
  h.set(name.subarray(0, 100), 0);
  writeAscii(h, 100, octal(0o644, 8));
  writeAscii(h, 108, octal(0, 8));
  writeAscii(h, 116, octal(0, 8));
  writeAscii(h, 124, octal(size, 12));
  writeAscii(h, 136, octal(0, 12));
  writeAscii(h, 148, "        ");
  writeAscii(h, 156, type);
  // GNU magic: its readers (and ours) take `L` records with it.
  writeAscii(h, 257, "ustar  \0");
  let sum = 0;
  for (const b of h) sum += b;
  writeAscii(h, 148, octal(sum, 7) + " ");
  return h;
}

const padded = (n: number) => Math.ceil(n / BLOCK) * BLOCK;

/**
 * A tar stream holding `files` (with the two end blocks). A size over the ustar field's 8 GiB
 * cannot occur: callers bound their input far below it.
 * @example packTar([{ path: "src/index.mjs", data: bytes }])
 */
export function packTar(files: readonly PackedFile[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  const push = (b: Uint8Array, length = b.length) => {
    parts.push(b);
    total += padded(length);
  };
  for (const f of files) {
    const name = ENCODER.encode(f.path);
    if (name.length > 100) {
      const long = new Uint8Array(name.length + 1);
      long.set(name);
      push(header(ENCODER.encode("././@LongLink"), long.length, "L"));
      push(long);
    }
    push(header(name, f.data.length, "0"));
    if (f.data.length > 0) push(f.data);
  }
  const out = new Uint8Array(total + 2 * BLOCK);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += padded(p.length);
  }
  return out;
}
