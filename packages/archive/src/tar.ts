/**
 * @module archive/tar
 * A streaming reader of the tar inside a .tar.gz: ustar (with prefix), GNU `L` long names and
 * pax `x` headers (path, size). Invariants: every header's checksum is verified; only regular
 * files and folders are admitted (links, devices, FIFOs, `g`, `K`, sparse and unknown types are
 * refused); content is passed through as it is inflated, never gathered (only a metadata record
 * of at most 64 KiB and one 512-byte header are buffered); the archive must end with two zero
 * blocks, and anything after them must be zero.
 */
import {
  callSink,
  describeError,
  ExpansionMeter,
  FileDelivery,
  type ArchiveSink,
} from "./delivery.ts";
import { inflateStream } from "./inflate.ts";
import type { ArchiveLimits } from "./limits.ts";
import { decodeEntryName, isRootName, NameAdmission } from "./names.ts";
import { buildRefusal, type ArchiveRefusal } from "./refusal.ts";
import { err, ok, type Result } from "@bouts/result";
import type { ReadTally } from "./tally.ts";

const BLOCK = 512;
/** Largest pax or GNU long-name record we gather; real ones are a few hundred bytes. */
const MAX_METADATA_BYTES = 64 * 1024;
const LOSSY = new TextDecoder("utf-8");
const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function readField(h: Uint8Array, at: number, len: number): Uint8Array {
  const f = h.subarray(at, at + len);
  const nul = f.indexOf(0);
  return nul < 0 ? f : f.subarray(0, nul);
}

function parseOctal(h: Uint8Array, at: number, len: number): number | null {
  let i = at;
  const end = at + len;
  while (i < end && h[i] === 0x20) i += 1;
  let value = 0;
  let digits = 0;
  for (; i < end && h[i]! >= 0x30 && h[i]! <= 0x37; i += 1) {
    value = value * 8 + (h[i]! - 0x30);
    digits += 1;
  }
  for (; i < end; i += 1) if (h[i] !== 0 && h[i] !== 0x20) return null;
  return digits > 0 ? value : null;
}

function parseSize(h: Uint8Array): number | null {
  if ((h[124]! & 0x80) === 0) return parseOctal(h, 124, 12);
  // GNU base-256: a positive big-endian number after the marker bit.
  if (h[124] !== 0x80) return null;
  let value = 0;
  for (let i = 125; i < 136; i += 1) value = value * 256 + h[i]!;
  return Number.isSafeInteger(value) ? value : null;
}

function verifyChecksum(h: Uint8Array): boolean {
  const stored = parseOctal(h, 148, 8);
  if (stored === null) return false;
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i += 1) {
    const b = i >= 148 && i < 156 ? 0x20 : h[i]!;
    unsigned += b;
    signed += b > 127 ? b - 256 : b;
  }
  return stored === unsigned || stored === signed;
}

function isZero(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0) return false;
  return true;
}

function startsWith(h: Uint8Array, at: number, ascii: string): boolean {
  for (let i = 0; i < ascii.length; i += 1) if (h[at + i] !== ascii.charCodeAt(i)) return false;
  return true;
}

interface Pending {
  path?: string;
  nameBytes?: Uint8Array;
  size?: number;
  records: number;
}

type Mode = "header" | "data" | "pad" | "meta" | "end";

/** Parses the inflated tar stream chunk by chunk; all state lives here. */
class TarReader {
  readonly #limits: ArchiveLimits;
  readonly #sink: ArchiveSink | undefined;
  readonly #admission: NameAdmission;
  readonly #tally: ReadTally;
  readonly #header = new Uint8Array(BLOCK);
  #fill = 0;
  #mode: Mode = "header";
  #zeroBlocks = 0;
  #remaining = 0;
  #padding = 0;
  #file: FileDelivery | null = null;
  #meta: { type: "x" | "L"; buf: Uint8Array; fill: number } | null = null;
  #pending: Pending = { records: 0 };
  /** The entry whose bytes are being read, for refusals raised mid-entry. */
  current: string | undefined;

  constructor(
    limits: ArchiveLimits,
    sink: ArchiveSink | undefined,
    admission: NameAdmission,
    tally: ReadTally,
  ) {
    this.#limits = limits;
    this.#sink = sink;
    this.#admission = admission;
    this.#tally = tally;
  }

  /** Aborts the open file after a refusal. */
  async abort(): Promise<void> {
    const file = this.#file;
    this.#file = null;
    if (file) await file.abort();
  }

  /** Consumes one inflated chunk. */
  async push(chunk: Uint8Array): Promise<ArchiveRefusal | null> {
    let at = 0;
    while (at < chunk.length) {
      const left = chunk.length - at;
      switch (this.#mode) {
        case "header": {
          const n = Math.min(BLOCK - this.#fill, left);
          this.#header.set(chunk.subarray(at, at + n), this.#fill);
          this.#fill += n;
          at += n;
          if (this.#fill === BLOCK) {
            this.#fill = 0;
            const r = await this.#onHeader(this.#header);
            if (r) return r;
          }
          break;
        }
        case "data": {
          const n = Math.min(this.#remaining, left);
          const r = await this.#file!.push(chunk.subarray(at, at + n));
          if (r) return r;
          this.#remaining -= n;
          at += n;
          if (this.#remaining === 0) {
            const file = this.#file!;
            const done = await file.finish();
            if (done) return done; // the file stays open here, so abort() reaches it
            this.#file = null;
            this.#tally.files.push({ path: this.current!, bytes: file.bytes });
            this.#tally.expandedBytes += file.bytes;
            this.#afterData();
          }
          break;
        }
        case "pad": {
          const n = Math.min(this.#padding, left);
          this.#padding -= n;
          at += n;
          if (this.#padding === 0) this.#mode = "header";
          break;
        }
        case "meta": {
          const meta = this.#meta!;
          const n = Math.min(meta.buf.length - meta.fill, left);
          meta.buf.set(chunk.subarray(at, at + n), meta.fill);
          meta.fill += n;
          at += n;
          if (meta.fill === meta.buf.length) {
            const r = this.#onMeta(meta.type, meta.buf);
            this.#meta = null;
            if (r) return r;
            this.#afterData();
          }
          break;
        }
        case "end": {
          if (!isZero(chunk.subarray(at))) {
            return buildRefusal("trailing-data", undefined, "non-zero bytes after the end blocks");
          }
          at = chunk.length;
          break;
        }
      }
    }
    return null;
  }

  /** Checks the stream ended where a tar may end. */
  finish(): ArchiveRefusal | null {
    if (this.#mode === "end") return null;
    if (this.#mode === "data" || this.#mode === "meta") {
      return buildRefusal("truncated", this.current, "the archive ends inside this entry");
    }
    return buildRefusal("truncated", undefined, "missing the two end-of-archive blocks");
  }

  #afterData(): void {
    this.#mode = this.#padding > 0 ? "pad" : "header";
    this.current = undefined;
  }

  #expect(size: number): void {
    this.#remaining = size;
    this.#padding = (BLOCK - (size % BLOCK)) % BLOCK;
  }

  async #onHeader(h: Uint8Array): Promise<ArchiveRefusal | null> {
    if (isZero(h)) {
      if (this.#pending.records > 0) {
        return buildRefusal("corrupt-archive", undefined, "metadata header without an entry");
      }
      this.#zeroBlocks += 1;
      if (this.#zeroBlocks === 2) this.#mode = "end";
      return null;
    }
    const storedName = LOSSY.decode(readField(h, 0, 100));
    if (this.#zeroBlocks > 0) {
      return buildRefusal("corrupt-archive", storedName, "a lone zero block before this header");
    }
    if (!verifyChecksum(h)) {
      return buildRefusal("checksum-mismatch", storedName, "tar header checksum");
    }
    const posix = startsWith(h, 257, "ustar\0");
    let nameBytes = readField(h, 0, 100);
    const prefix = posix ? readField(h, 345, 155) : new Uint8Array(0);
    if (prefix.length > 0) {
      const joined = new Uint8Array(prefix.length + 1 + nameBytes.length);
      joined.set(prefix);
      joined[prefix.length] = 0x2f;
      joined.set(nameBytes, prefix.length + 1);
      nameBytes = joined;
    }
    const pending = this.#pending;
    let name: string;
    if (pending.path !== undefined) name = pending.path;
    else {
      const decoded = decodeEntryName(pending.nameBytes ?? nameBytes);
      if (!decoded.ok) return decoded.error;
      name = decoded.value;
    }
    const headerSize = parseSize(h);
    if (headerSize === null) return buildRefusal("corrupt-archive", name, "unreadable size field");
    const size = pending.size ?? headerSize;
    const type = String.fromCharCode(h[156]!);

    if (type === "x" || type === "L") {
      if ((type === "x" && pending.path !== undefined) || pending.records >= 2) {
        return buildRefusal("corrupt-archive", name, "repeated metadata headers");
      }
      if (headerSize > MAX_METADATA_BYTES) {
        return buildRefusal("corrupt-archive", name, `metadata record of ${headerSize} bytes`);
      }
      pending.records += 1;
      this.#expect(headerSize);
      this.#meta = { type, buf: new Uint8Array(headerSize), fill: 0 };
      this.current = name;
      if (headerSize === 0) {
        this.#meta = null;
        this.#afterData();
        return this.#onMeta(type, new Uint8Array(0));
      }
      this.#mode = "meta";
      return null;
    }
    this.#pending = { records: 0 };
    this.current = name;
    if (type === "1" || type === "2") {
      const what = type === "1" ? "hard link" : "symbolic link";
      return buildRefusal("link-entry", name, what);
    }
    if (type === "3" || type === "4" || type === "6") {
      const what = { "3": "character device", "4": "block device", "6": "FIFO" }[type];
      return buildRefusal("special-entry", name, what);
    }
    const kind =
      type === "5" ? "dir" : type === "0" || type === "\0" || type === "7" ? "file" : null;
    if (!kind) {
      const shown = /^[\x21-\x7e]$/.test(type) ? `'${type}'` : `0x${h[156]!.toString(16)}`;
      return buildRefusal("unsupported-entry-type", name, `tar type ${shown}`);
    }
    const counted = this.#admission.count(name);
    if (counted) return counted;
    if (kind === "dir") {
      if (size !== 0) return buildRefusal("corrupt-archive", name, "a folder entry with data");
      if (isRootName(name)) return this.#skip();
      const admitted = this.#admission.admit(name, "dir");
      if (!admitted.ok) return admitted.error;
      this.current = admitted.value;
      this.#tally.dirs += 1;
      const sink = this.#sink;
      if (sink?.directory) {
        const info = { path: admitted.value, kind: "dir" as const, executable: true };
        const r = await callSink(admitted.value, () => sink.directory!(info));
        if (r) return r;
      }
      return this.#skip();
    }
    if (name.endsWith("/")) return buildRefusal("unsafe-path", name, "a file name ending in '/'");
    const admitted = this.#admission.admit(name, "file");
    if (!admitted.ok) return admitted.error;
    const path = admitted.value;
    this.current = path;
    if (size > this.#limits.maxExpandedBytes) {
      return buildRefusal("too-large-expanded", path, `declares ${size} bytes`, {
        limit: this.#limits.maxExpandedBytes,
      });
    }
    const mode = parseOctal(h, 100, 8) ?? 0o644;
    const opened = await FileDelivery.open(this.#sink, {
      path,
      kind: "file",
      executable: (mode & 0o111) !== 0,
      size,
    });
    if (!(opened instanceof FileDelivery)) return opened;
    this.#file = opened;
    this.#expect(size);
    if (size > 0) {
      this.#mode = "data";
      return null;
    }
    const done = await opened.finish();
    if (done) return done;
    this.#file = null;
    this.#tally.files.push({ path, bytes: 0 });
    this.#afterData();
    return null;
  }

  #skip(): null {
    this.#expect(0);
    this.#afterData();
    return null;
  }

  #onMeta(type: "x" | "L", buf: Uint8Array): ArchiveRefusal | null {
    if (type === "L") {
      const nul = buf.indexOf(0);
      this.#pending.nameBytes = nul < 0 ? buf : buf.subarray(0, nul);
      return null;
    }
    let at = 0;
    while (at < buf.length) {
      let sp = at;
      while (sp < buf.length && buf[sp]! >= 0x30 && buf[sp]! <= 0x39) sp += 1;
      const len = Number(LOSSY.decode(buf.subarray(at, sp)));
      if (sp === at || buf[sp] !== 0x20 || len <= sp - at + 1 || at + len > buf.length) {
        return buildRefusal("corrupt-archive", this.current, "malformed pax record");
      }
      const record = buf.subarray(sp + 1, at + len);
      if (record[record.length - 1] !== 0x0a) {
        return buildRefusal("corrupt-archive", this.current, "pax record without newline");
      }
      const eq = record.indexOf(0x3d);
      if (eq <= 0) return buildRefusal("corrupt-archive", this.current, "pax record without '='");
      const key = LOSSY.decode(record.subarray(0, eq));
      const valueBytes = record.subarray(eq + 1, record.length - 1);
      if (key === "path") {
        let value: string;
        try {
          value = STRICT.decode(valueBytes);
        } catch {
          return buildRefusal("invalid-name-encoding", LOSSY.decode(valueBytes), "pax path");
        }
        this.#pending.path = value;
      } else if (key === "size") {
        const text = LOSSY.decode(valueBytes);
        const size = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
        if (!Number.isSafeInteger(size)) {
          return buildRefusal("corrupt-archive", this.current, `pax size ${JSON.stringify(text)}`);
        }
        this.#pending.size = size;
      } else if (key.startsWith("GNU.sparse.")) {
        return buildRefusal("unsupported-entry-type", this.current, "sparse file");
      }
      at += len;
    }
    return null;
  }
}

/** Validates (and with a sink, delivers) a .tar.gz; `tally` collects what was admitted. */
export async function readTarGz(
  bytes: Uint8Array,
  limits: ArchiveLimits,
  sink: ArchiveSink | undefined,
  tally: ReadTally,
): Promise<Result<void, ArchiveRefusal>> {
  const meter = new ExpansionMeter(limits);
  const reader = new TarReader(limits, sink, new NameAdmission(limits), tally);
  const outcome = await inflateStream(
    bytes,
    "gzip",
    (n) => meter.addCompressed(n),
    async (chunk) => meter.addExpanded(chunk.length, reader.current) ?? reader.push(chunk),
  );
  if (outcome.kind === "refused") {
    await reader.abort();
    return err(outcome.refusal);
  }
  if (outcome.kind === "failed") {
    await reader.abort();
    const detail = `gzip: ${describeError(outcome.error)}`;
    return err(
      buildRefusal(outcome.truncated ? "truncated" : "corrupt-archive", reader.current, detail),
    );
  }
  const ended = reader.finish();
  if (ended) {
    await reader.abort();
    return err(ended);
  }
  return ok(undefined);
}
