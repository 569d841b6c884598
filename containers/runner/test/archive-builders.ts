/**
 * Builders for hand-made archives, so tests can produce exactly the hostile entries a real
 * attacker would (traversal, links, devices, duplicates) without any tool normalizing them.
 */
import { deflateRawSync, gzipSync, crc32 } from "node:zlib";

/** One tar entry: `type` is the ustar typeflag ("0" file, "5" dir, "2" symlink, "1" hardlink, "3" char device). */
export interface TarEntry {
  name: string;
  type?: "0" | "1" | "2" | "3" | "5" | "6";
  data?: string | Buffer;
  linkname?: string;
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
}

/** Builds a gzipped ustar archive from raw entries. */
export function buildTarGz(entries: TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const data = Buffer.from(e.data ?? "");
    const h = Buffer.alloc(512);
    h.write(e.name, 0, 100, "utf8");
    h.write(octal(e.type === "5" ? 0o755 : 0o644, 8), 100);
    h.write(octal(0, 8), 108);
    h.write(octal(0, 8), 116);
    h.write(octal(e.type === "0" || e.type === undefined ? data.length : 0, 12), 124);
    h.write(octal(0, 12), 136);
    h.write("        ", 148);
    h.write(e.type ?? "0", 156);
    h.write(e.linkname ?? "", 157, 100, "utf8");
    h.write("ustar\u000000", 257, "latin1");
    let sum = 0;
    for (const b of h) sum += b;
    h.write(octal(sum, 7) + " ", 148, "latin1");
    blocks.push(h);
    if ((e.type ?? "0") === "0" && data.length > 0) {
      blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** One zip entry; `unixMode` sets the external attributes (e.g. 0o120777 for a symlink). */
export interface ZipEntry {
  name: string;
  data?: string | Buffer;
  unixMode?: number;
}

/** Builds a zip archive (deflated entries, made on Unix) from raw entries. */
export function buildZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, "utf8");
    const data = Buffer.from(e.data ?? "");
    const comp = deflateRawSync(data);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(comp.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, comp);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(comp.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(
      ((e.unixMode ?? (e.name.endsWith("/") ? 0o40755 : 0o100644)) << 16) >>> 0,
      38,
    );
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + comp.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}
