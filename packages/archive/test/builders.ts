/**
 * Byte-level builders for tar.gz and zip archives, so tests can write exactly the hostile
 * structures an attacker would (lying headers, overlaps, links, raw name bytes) with no tool
 * normalizing them. Node-only: test code.
 */
import { constants, crc32, createDeflateRaw, deflateRawSync, gzipSync } from "node:zlib";

const enc = (s: string | Uint8Array): Buffer =>
  typeof s === "string" ? Buffer.from(s, "utf8") : Buffer.from(s);

// ─── tar ───

/** One tar header (and its data); `type` is the typeflag ("0" file, "5" dir, "x", "L", …). */
export interface TarSpec {
  name: string | Uint8Array;
  type?: string;
  data?: string | Uint8Array;
  /** Declared size when it should differ from the data's. */
  size?: number;
  mode?: number;
  linkname?: string;
  /** The ustar prefix field (POSIX ustar only). */
  prefix?: string;
  badChecksum?: boolean;
  /** Emit a pax `x` header with these records before this entry. */
  pax?: Record<string, string | Uint8Array>;
  /** Emit a GNU `L` long-name header with this name before this entry. */
  longName?: string | Uint8Array;
  /** "gnu" writes the GNU magic ("ustar  \0") instead of POSIX ustar. */
  magic?: "ustar" | "gnu" | "none";
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
}

/** Builds one 512-byte header. */
export function buildTarHeader(spec: TarSpec, size: number): Buffer {
  const h = Buffer.alloc(512);
  enc(spec.name).copy(h, 0, 0, 100);
  const type = spec.type ?? "0";
  h.write(octal(spec.mode ?? (type === "5" ? 0o755 : 0o644), 8), 100, "latin1");
  h.write(octal(0, 8), 108, "latin1");
  h.write(octal(0, 8), 116, "latin1");
  h.write(octal(size, 12), 124, "latin1");
  h.write(octal(0, 12), 136, "latin1");
  h.write("        ", 148, "latin1");
  h.write(type, 156, "latin1");
  enc(spec.linkname ?? "").copy(h, 157, 0, 100);
  const magic = spec.magic ?? "ustar";
  if (magic === "ustar") h.write("ustar\u000000", 257, "latin1");
  if (magic === "gnu") h.write("ustar  \0", 257, "latin1");
  if (spec.prefix) enc(spec.prefix).copy(h, 345, 0, 155);
  let sum = 0;
  for (const b of h) sum += b;
  if (spec.badChecksum) sum += 1;
  h.write(octal(sum, 7) + " ", 148, "latin1");
  return h;
}

function pad(data: Buffer): Buffer[] {
  const rest = (512 - (data.length % 512)) % 512;
  return rest ? [data, Buffer.alloc(rest)] : [data];
}

function paxRecords(records: Record<string, string | Uint8Array>): Buffer {
  const out: Buffer[] = [];
  for (const [k, v] of Object.entries(records)) {
    const body = Buffer.concat([Buffer.from(` ${k}=`), enc(v), Buffer.from("\n")]);
    let len = body.length + 1;
    while (String(len).length + body.length !== len) len += 1;
    out.push(Buffer.from(String(len)), body);
  }
  return Buffer.concat(out);
}

/** Options for a whole tar stream. */
export interface TarOptions {
  /** Zero blocks at the end (default 2). */
  endBlocks?: number;
  /** Bytes appended after the end blocks. */
  trailing?: Uint8Array;
}

/** Builds an uncompressed tar stream. */
export function buildTar(specs: TarSpec[], options: TarOptions = {}): Buffer {
  const blocks: Buffer[] = [];
  for (const spec of specs) {
    if (spec.pax) {
      const body = paxRecords(spec.pax);
      blocks.push(buildTarHeader({ name: "PaxHeader", type: "x" }, body.length), ...pad(body));
    }
    if (spec.longName !== undefined) {
      const body = Buffer.concat([enc(spec.longName), Buffer.alloc(1)]);
      blocks.push(
        buildTarHeader({ name: "././@LongLink", type: "L", magic: "gnu" }, body.length),
        ...pad(body),
      );
    }
    const data = enc(spec.data ?? "");
    blocks.push(buildTarHeader(spec, spec.size ?? data.length));
    if (data.length > 0) blocks.push(...pad(data));
  }
  blocks.push(Buffer.alloc(512 * (options.endBlocks ?? 2)));
  if (options.trailing) blocks.push(Buffer.from(options.trailing));
  return Buffer.concat(blocks);
}

/** Builds a gzipped tar. */
export function buildTarGz(specs: TarSpec[], options: TarOptions = {}): Buffer {
  return gzipSync(buildTar(specs, options));
}

// ─── zip ───

/** One zip entry; the overrides write lying or mismatched headers. */
export interface ZipSpec {
  name: string | Uint8Array;
  data?: string | Uint8Array;
  /** 0 stored, 8 deflate (default); any other id stores the bytes under that id. */
  method?: number;
  flags?: number;
  unixMode?: number;
  madeBy?: number;
  crc?: number;
  size?: number;
  compressedSize?: number;
  /** Values written only in the local header. */
  local?: {
    name?: string | Uint8Array;
    flags?: number;
    method?: number;
    crc?: number;
    size?: number;
    compressedSize?: number;
  };
  /** Write no local header for it; its central record points at `offset`. */
  centralOnly?: { offset: number };
  /** Bit 3: sizes and CRC in a data descriptor after the data. */
  descriptor?: boolean;
  /** Bytes inserted before this entry's local header. */
  gapBefore?: Uint8Array;
}

/** Options for the end records. */
export interface ZipOptions {
  disk?: number;
  /** Declared entry count (both fields) when it should lie. */
  count?: number;
  /** Write zip64 end records declaring this many entries. */
  zip64Count?: bigint;
  trailing?: Uint8Array;
}

/** The compressed payload and CRC of an entry. */
export function compressZipData(spec: ZipSpec): { comp: Buffer; crc: number; size: number } {
  const data = enc(spec.data ?? "");
  const method = spec.method ?? 8;
  return { comp: method === 8 ? deflateRawSync(data) : data, crc: crc32(data), size: data.length };
}

/** Builds one local header followed by its data. */
export function buildZipLocal(spec: ZipSpec): Buffer {
  const { comp, crc, size } = compressZipData(spec);
  const l = spec.local ?? {};
  const name = enc(l.name ?? spec.name);
  const flags = l.flags ?? spec.flags ?? 0x800;
  const deferred = spec.descriptor === true;
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(20, 4);
  h.writeUInt16LE(flags | (deferred ? 8 : 0), 6);
  h.writeUInt16LE(l.method ?? spec.method ?? 8, 8);
  h.writeUInt32LE(deferred ? 0 : (l.crc ?? spec.crc ?? crc), 14);
  h.writeUInt32LE(deferred ? 0 : (l.compressedSize ?? spec.compressedSize ?? comp.length), 18);
  h.writeUInt32LE(deferred ? 0 : (l.size ?? spec.size ?? size), 22);
  h.writeUInt16LE(name.length, 26);
  const parts = [h, name, comp];
  if (deferred) {
    const d = Buffer.alloc(16);
    d.writeUInt32LE(0x08074b50, 0);
    d.writeUInt32LE(spec.crc ?? crc, 4);
    d.writeUInt32LE(spec.compressedSize ?? comp.length, 8);
    d.writeUInt32LE(spec.size ?? size, 12);
    parts.push(d);
  }
  return Buffer.concat(parts);
}

/** Builds a zip archive (made on Unix) from raw entries. */
export function buildZip(specs: ZipSpec[], options: ZipOptions = {}): Buffer {
  const body: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const spec of specs) {
    if (spec.gapBefore) {
      body.push(Buffer.from(spec.gapBefore));
      offset += spec.gapBefore.length;
    }
    const { comp, crc, size } = compressZipData(spec);
    const name = enc(spec.name);
    const localOffset = spec.centralOnly?.offset ?? offset;
    if (!spec.centralOnly) {
      const local = buildZipLocal(spec);
      body.push(local);
      offset += local.length;
    }
    const c = Buffer.alloc(46);
    const isDir = typeof spec.name === "string" && spec.name.endsWith("/");
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(spec.madeBy ?? (3 << 8) | 20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE((spec.flags ?? 0x800) | (spec.descriptor ? 8 : 0), 8);
    c.writeUInt16LE(spec.method ?? 8, 10);
    c.writeUInt32LE(spec.crc ?? crc, 16);
    c.writeUInt32LE(spec.compressedSize ?? comp.length, 20);
    c.writeUInt32LE(spec.size ?? size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(((spec.unixMode ?? (isDir ? 0o40755 : 0o100644)) << 16) >>> 0, 38);
    c.writeUInt32LE(localOffset, 42);
    centrals.push(c, name);
  }
  const cd = Buffer.concat(centrals);
  const tail: Buffer[] = [];
  const count = options.count ?? specs.length;
  if (options.zip64Count !== undefined) {
    const rec = Buffer.alloc(56);
    rec.writeUInt32LE(0x06064b50, 0);
    rec.writeBigUInt64LE(44n, 4);
    rec.writeUInt16LE(45, 12);
    rec.writeUInt16LE(45, 14);
    rec.writeBigUInt64LE(options.zip64Count, 24);
    rec.writeBigUInt64LE(options.zip64Count, 32);
    rec.writeBigUInt64LE(BigInt(cd.length), 40);
    rec.writeBigUInt64LE(BigInt(offset), 48);
    const loc = Buffer.alloc(20);
    loc.writeUInt32LE(0x07064b50, 0);
    loc.writeBigUInt64LE(BigInt(offset + cd.length), 8);
    loc.writeUInt32LE(1, 16);
    tail.push(rec, loc);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(options.disk ?? 0, 4);
  end.writeUInt16LE(options.zip64Count !== undefined ? 0xffff : count, 8);
  end.writeUInt16LE(options.zip64Count !== undefined ? 0xffff : count, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(options.zip64Count !== undefined ? 0xffffffff : offset, 16);
  tail.push(end);
  if (options.trailing) tail.push(Buffer.from(options.trailing));
  return Buffer.concat([...body, cd, ...tail]);
}

// ─── Bombs ───

const MIB = 1024 * 1024;

/** A raw deflate segment of 1 MiB of zeros ending in a full flush, so it can be repeated. */
async function buildZeroSegment(): Promise<Buffer> {
  const d = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  d.on("data", (c: Buffer) => out.push(c));
  d.write(Buffer.alloc(MIB));
  await new Promise<void>((resolve) => d.flush(constants.Z_FULL_FLUSH, () => resolve()));
  d.destroy();
  return Buffer.concat(out);
}

let zeroSegment: Promise<Buffer> | null = null;

/**
 * A raw deflate stream of `pieces` (bytes, or a number of MiB of zeros), built from one
 * repeated full-flush segment so that a 1 GiB bomb costs about a megabyte to build.
 */
export async function buildZeroDeflate(
  pieces: (Uint8Array | number)[],
): Promise<{ deflated: Buffer; crc: number; size: number }> {
  zeroSegment ??= buildZeroSegment();
  const seg = await zeroSegment;
  const zeros = Buffer.alloc(MIB);
  const parts: Buffer[] = [];
  let crc = 0;
  let size = 0;
  for (const p of pieces) {
    if (typeof p === "number") {
      for (let i = 0; i < p; i += 1) {
        parts.push(seg);
        crc = crc32(zeros, crc);
      }
      size += p * MIB;
    } else if (p.length > 0) {
      parts.push(deflateRawSync(p, { finishFlush: constants.Z_FULL_FLUSH }));
      crc = crc32(p, crc);
      size += p.length;
    }
  }
  parts.push(deflateRawSync(Buffer.alloc(0))); // the final block
  return { deflated: Buffer.concat(parts), crc, size };
}

/** Options of a bomb: its expanded size, and how it is spread or declared. */
export interface BombOptions {
  /** MiB of zeros in all (default 1024). */
  mib?: number;
  /** Zip: the size the headers declare, in MiB (default: the truth). */
  declaredMib?: number;
  /** Tar: MiB per entry (default: one entry). */
  perEntryMib?: number;
}

/** A zip holding one file of zeros. */
export async function buildZipBomb(options: BombOptions = {}): Promise<Buffer> {
  const mib = options.mib ?? 1024;
  const { deflated, crc, size } = await buildZeroDeflate([mib]);
  const declared = options.declaredMib !== undefined ? options.declaredMib * MIB : size;
  const n = Buffer.from("zeros.bin");
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(0x800, 6);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(deflated.length, 18);
  local.writeUInt32LE(declared, 22);
  local.writeUInt16LE(n.length, 26);
  const c = Buffer.alloc(46);
  c.writeUInt32LE(0x02014b50, 0);
  c.writeUInt16LE((3 << 8) | 20, 4);
  c.writeUInt16LE(20, 6);
  c.writeUInt16LE(0x800, 8);
  c.writeUInt16LE(8, 10);
  c.writeUInt32LE(crc, 16);
  c.writeUInt32LE(deflated.length, 20);
  c.writeUInt32LE(declared, 24);
  c.writeUInt16LE(n.length, 28);
  c.writeUInt32LE((0o100644 << 16) >>> 0, 38);
  const cdOffset = 30 + n.length + deflated.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + n.length, 12);
  end.writeUInt32LE(cdOffset, 16);
  return Buffer.concat([local, n, deflated, c, n, end]);
}

/** A tar.gz of zeros (one gzip member), in files of `perEntryMib` named zeros.bin, zeros-1.bin, … */
export async function buildTarGzBomb(options: BombOptions = {}): Promise<Buffer> {
  const mib = options.mib ?? 1024;
  const per = options.perEntryMib ?? mib;
  const pieces: (Uint8Array | number)[] = [];
  for (let i = 0; i * per < mib; i += 1) {
    const n = Math.min(per, mib - i * per);
    pieces.push(buildTarHeader({ name: i === 0 ? "zeros.bin" : `zeros-${i}.bin` }, n * MIB), n);
  }
  pieces.push(Buffer.alloc(1024));
  const { deflated, crc, size } = await buildZeroDeflate(pieces);
  const head = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc, 0);
  trailer.writeUInt32LE(size % 2 ** 32, 4);
  return Buffer.concat([head, deflated, trailer]);
}
