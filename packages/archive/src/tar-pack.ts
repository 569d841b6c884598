/**
 * @module archive/tar-pack
 * Packs files into an uncompressed POSIX ustar archive, the inverse of the reader for the
 * platform's own archives (a baseline cut out of a challenge bundle). Invariants: regular files
 * only, with the names given (a long name is split into ustar's prefix and name fields, and one
 * that does not fit is refused); fixed owner, time and modes, so the same files always pack to
 * the same bytes. Pure: no I/O, no clock.
 */
import type { Result } from "@bouts/result";

/** One file to pack. */
export interface PackFile {
  /** Relative POSIX path. */
  path: string;
  bytes: Uint8Array;
  executable?: boolean;
}

const BLOCK = 512;
const encoder = new TextEncoder();

function writeString(header: Uint8Array, offset: number, length: number, value: string): void {
  header.set(encoder.encode(value).subarray(0, length), offset);
}

function writeOctal(header: Uint8Array, offset: number, length: number, value: number): void {
  writeString(header, offset, length, `${value.toString(8).padStart(length - 1, "0")}\0`);
}

/** Splits a path into ustar's `prefix` (≤155 bytes) and `name` (≤100 bytes), or null. */
function splitName(path: string): { prefix: string; name: string } | null {
  if (encoder.encode(path).length <= 100) return { prefix: "", name: path };
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join("/");
    const name = parts.slice(i).join("/");
    if (encoder.encode(prefix).length <= 155 && encoder.encode(name).length <= 100)
      return { prefix, name };
  }
  return null;
}

/**
 * The ustar archive of `files`, in the order given, or the path that cannot be named in ustar.
 * @example packTar([{ path: "app.mjs", bytes: new TextEncoder().encode("export {};\n") }])
 */
export function packTar(files: readonly PackFile[]): Result<Uint8Array, { path: string }> {
  const blocks: Uint8Array[] = [];
  for (const f of files) {
    const names = splitName(f.path);
    if (!names) return { ok: false, error: { path: f.path } };
    const header = new Uint8Array(BLOCK);
    writeString(header, 0, 100, names.name);
    writeOctal(header, 100, 8, f.executable ? 0o755 : 0o644);
    writeOctal(header, 108, 8, 0);
    writeOctal(header, 116, 8, 0);
    writeOctal(header, 124, 12, f.bytes.length);
    writeOctal(header, 136, 12, 0);
    header.fill(0x20, 148, 156); // the checksum counts its own field as spaces
    header[156] = 0x30; // '0': a regular file
    writeString(header, 257, 6, "ustar\0");
    writeString(header, 263, 2, "00");
    writeString(header, 345, 155, names.prefix);
    const sum = header.reduce((a, b) => a + b, 0);
    writeString(header, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
    blocks.push(header, f.bytes);
    const pad = (BLOCK - (f.bytes.length % BLOCK)) % BLOCK;
    if (pad > 0) blocks.push(new Uint8Array(pad));
  }
  blocks.push(new Uint8Array(BLOCK * 2));
  const out = new Uint8Array(blocks.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of blocks) {
    out.set(b, at);
    at += b.length;
  }
  return { ok: true, value: out };
}
