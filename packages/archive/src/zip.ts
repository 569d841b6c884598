/**
 * @module archive/zip
 * A zip reader over the whole archive in memory. The structure is validated before any byte
 * is inflated: one disk only, a declared entry count within the limit (checked before
 * iterating), every central record matched by its local header (name, method, flags, sizes,
 * CRC), entries and the central directory tiling the file with no overlap and no gap, no
 * encryption, only stored and deflate. Then each file is inflated through the platform's
 * `DecompressionStream`, its CRC and size checked as bytes are produced.
 */
import {
  callSink,
  describeError,
  ExpansionMeter,
  FileDelivery,
  type ArchiveSink,
} from "./delivery.ts";
import { updateCrc32 } from "./crc32.ts";
import { inflateStream } from "./inflate.ts";
import type { ArchiveLimits } from "./limits.ts";
import { decodeEntryName, isRootName, NameAdmission } from "./names.ts";
import { buildRefusal, type ArchiveRefusal } from "./refusal.ts";
import { err, ok, type Result } from "@bouts/result";
import type { ReadTally } from "./tally.ts";

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_END = 0x06054b50;
const SIG_END64 = 0x06064b50;
const SIG_LOCATOR64 = 0x07064b50;
const SIG_DESCRIPTOR = 0x08074b50;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;
/** Stored pieces are handed on in slices this size, like inflated output. */
const STORED_SLICE_BYTES = 64 * 1024;

interface CentralEntry {
  name: string;
  nameBytes: Uint8Array;
  path: string;
  kind: "file" | "dir";
  executable: boolean;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  zip64: boolean;
  /** Filled in by the local-header pass. */
  dataStart: number;
  end: number;
}

const corrupt = (detail: string, entry?: string) =>
  err(buildRefusal("corrupt-archive", entry, detail));

function readU64(view: DataView, at: number): number {
  const v = view.getBigUint64(at, true);
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(v);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

/** Reads the zip64 extended-information extra field over the saturated values. */
function applyZip64Extra(
  view: DataView,
  extraStart: number,
  extraEnd: number,
  values: { size: number; compressedSize: number; localOffset?: number },
): boolean {
  for (let at = extraStart; at + 4 <= extraEnd;) {
    const id = view.getUint16(at, true);
    const len = view.getUint16(at + 2, true);
    const body = at + 4;
    if (body + len > extraEnd) return false;
    if (id === 0x0001) {
      let p = body;
      const take = (): number | null => {
        if (p + 8 > body + len) return null;
        const v = readU64(view, p);
        p += 8;
        return v;
      };
      if (values.size === U32_MAX) values.size = take() ?? Number.NaN;
      if (values.compressedSize === U32_MAX) values.compressedSize = take() ?? Number.NaN;
      if (values.localOffset === U32_MAX) values.localOffset = take() ?? Number.NaN;
      return true;
    }
    at = body + len;
  }
  return true;
}

interface Directory {
  count: number;
  cdOffset: number;
  cdSize: number;
  /** Where the central directory must end (the zip64 record, or the end record). */
  cdEnd: number;
}

function locateDirectory(
  bytes: Uint8Array,
  limits: ArchiveLimits,
): Result<Directory, ArchiveRefusal> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - U16_MAX); at -= 1) {
    if (
      view.getUint32(at, true) === SIG_END &&
      at + 22 + view.getUint16(at + 20, true) === bytes.length
    ) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) {
    // A record that exists but does not reach the end means bytes were appended after it.
    for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - U16_MAX); at -= 1) {
      if (view.getUint32(at, true) === SIG_END) {
        return err(buildRefusal("trailing-data", undefined, "bytes after the end record"));
      }
    }
    return err(buildRefusal("truncated", undefined, "no end-of-central-directory record"));
  }
  const disk = view.getUint16(eocd + 4, true);
  const cdDisk = view.getUint16(eocd + 6, true);
  const onDisk = view.getUint16(eocd + 8, true);
  let count = view.getUint16(eocd + 10, true);
  let cdSize = view.getUint32(eocd + 12, true);
  let cdOffset = view.getUint32(eocd + 16, true);
  let cdEnd = eocd;
  const saturated =
    count === U16_MAX || onDisk === U16_MAX || cdSize === U32_MAX || cdOffset === U32_MAX;
  const hasLocator = eocd >= 20 && view.getUint32(eocd - 20, true) === SIG_LOCATOR64;
  if (disk !== 0 && disk !== U16_MAX)
    return err(buildRefusal("multi-disk", undefined, `disk ${disk}`));
  if ((cdDisk !== 0 && cdDisk !== U16_MAX) || (!saturated && onDisk !== count)) {
    return err(buildRefusal("multi-disk", undefined, "the central directory spans disks"));
  }
  if (hasLocator) {
    const totalDisks = view.getUint32(eocd - 20 + 16, true);
    if (view.getUint32(eocd - 20 + 4, true) !== 0 || totalDisks > 1) {
      return err(buildRefusal("multi-disk", undefined, `${totalDisks} disks`));
    }
    const at = readU64(view, eocd - 20 + 8);
    if (!(at + 56 <= eocd - 20) || view.getUint32(at, true) !== SIG_END64) {
      return corrupt("zip64 end record missing");
    }
    if (view.getUint32(at + 16, true) !== 0 || view.getUint32(at + 20, true) !== 0) {
      return err(buildRefusal("multi-disk", undefined, "zip64 record names another disk"));
    }
    const onDisk64 = readU64(view, at + 24);
    const count64 = readU64(view, at + 32);
    if (count64 > limits.maxEntries) {
      return err(
        buildRefusal("too-many-entries", undefined, `declares ${count64} entries`, {
          limit: limits.maxEntries,
        }),
      );
    }
    if (onDisk64 !== count64) {
      return err(buildRefusal("multi-disk", undefined, "the central directory spans disks"));
    }
    count = count64;
    cdSize = readU64(view, at + 40);
    cdOffset = readU64(view, at + 48);
    cdEnd = at;
  } else if (saturated) {
    return corrupt("zip64 values without a zip64 locator");
  }
  if (count > limits.maxEntries) {
    return err(
      buildRefusal("too-many-entries", undefined, `declares ${count} entries`, {
        limit: limits.maxEntries,
      }),
    );
  }
  if (cdOffset + cdSize !== cdEnd) {
    return cdOffset + cdSize > cdEnd
      ? err(
          buildRefusal(
            "overlapping-entries",
            undefined,
            "central directory overruns its end record",
          ),
        )
      : corrupt("bytes between the central directory and its end record");
  }
  return ok({ count, cdOffset, cdSize, cdEnd });
}

function readCentral(
  bytes: Uint8Array,
  dir: Directory,
  limits: ArchiveLimits,
): Result<CentralEntry[], ArchiveRefusal> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const admission = new NameAdmission(limits);
  const entries: CentralEntry[] = [];
  let at = dir.cdOffset;
  for (let i = 0; i < dir.count; i += 1) {
    if (at + 46 > dir.cdEnd || view.getUint32(at, true) !== SIG_CENTRAL) {
      return corrupt(`central record ${i + 1} of ${dir.count} is missing`);
    }
    const madeBy = view.getUint16(at + 4, true);
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    const nameLen = view.getUint16(at + 28, true);
    const extraLen = view.getUint16(at + 30, true);
    const commentLen = view.getUint16(at + 32, true);
    const diskStart = view.getUint16(at + 34, true);
    const external = view.getUint32(at + 38, true);
    const next = at + 46 + nameLen + extraLen + commentLen;
    if (next > dir.cdEnd) return corrupt(`central record ${i + 1} overruns the directory`);
    const nameBytes = bytes.subarray(at + 46, at + 46 + nameLen);
    const decoded = decodeEntryName(nameBytes);
    if (!decoded.ok) return decoded;
    const name = decoded.value;
    const values = {
      size: view.getUint32(at + 24, true),
      compressedSize: view.getUint32(at + 20, true),
      localOffset: view.getUint32(at + 42, true),
    };
    const zip64 =
      values.size === U32_MAX ||
      values.compressedSize === U32_MAX ||
      values.localOffset === U32_MAX;
    if (!applyZip64Extra(view, at + 46 + nameLen, at + 46 + nameLen + extraLen, values)) {
      return corrupt("malformed extra field", name);
    }
    if (![values.size, values.compressedSize, values.localOffset].every(Number.isSafeInteger)) {
      return corrupt("zip64 sizes missing or absurd", name);
    }
    if (diskStart !== 0)
      return err(buildRefusal("multi-disk", name, `starts on disk ${diskStart}`));
    // Bit 0: traditional encryption; bit 6: strong encryption; bit 13: masked central directory.
    if ((flags & 0x2041) !== 0 || method === 99) {
      return err(buildRefusal("encrypted-entry", name, `flags 0x${flags.toString(16)}`));
    }
    if (method !== 0 && method !== 8) {
      return err(buildRefusal("unsupported-method", name, `method ${method}`));
    }
    const counted = admission.count(name);
    if (counted) return err(counted);
    const kind = name.endsWith("/") ? "dir" : "file";
    const unixType = (external >>> 16) & 0o170000;
    if (madeBy >> 8 === 3 && unixType !== 0) {
      if (unixType === 0o120000) return err(buildRefusal("link-entry", name, "symbolic link"));
      if (unixType !== 0o100000 && unixType !== 0o040000) {
        return err(buildRefusal("special-entry", name, `unix mode ${unixType.toString(8)}`));
      }
      if ((unixType === 0o040000) !== (kind === "dir")) {
        return corrupt("folder mode and name disagree", name);
      }
    }
    let path = "";
    if (!(kind === "dir" && isRootName(name))) {
      const admitted = admission.admit(name, kind);
      if (!admitted.ok) return admitted;
      path = admitted.value;
    }
    if (kind === "dir" && (values.size !== 0 || values.compressedSize > 2)) {
      return corrupt("a folder entry with data", path || name);
    }
    if (kind === "file" && values.size > limits.maxExpandedBytes) {
      return err(
        buildRefusal("too-large-expanded", path, `declares ${values.size} bytes`, {
          limit: limits.maxExpandedBytes,
        }),
      );
    }
    entries.push({
      name,
      nameBytes,
      path,
      kind,
      executable: madeBy >> 8 === 3 && ((external >>> 16) & 0o111) !== 0,
      flags,
      method,
      crc,
      ...values,
      zip64,
      dataStart: 0,
      end: 0,
    });
    at = next;
  }
  if (at !== dir.cdEnd) return corrupt("bytes after the last central record");
  return ok(entries);
}

/** Matches each local header to its central record and checks the entries tile the file. */
function checkLocalHeaders(
  bytes: Uint8Array,
  entries: CentralEntry[],
  dir: Directory,
): Result<void, ArchiveRefusal> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const e of entries) {
    const label = e.path || e.name;
    const at = e.localOffset;
    if (at + 30 > dir.cdOffset || view.getUint32(at, true) !== SIG_LOCAL) {
      return at + 30 > bytes.length
        ? err(buildRefusal("truncated", label, "local header beyond the end"))
        : err(buildRefusal("header-mismatch", label, "no local header at the recorded offset"));
    }
    const mismatch = (field: string) =>
      err(buildRefusal("header-mismatch", label, `${field} differs between headers`));
    const flags = view.getUint16(at + 6, true);
    const method = view.getUint16(at + 8, true);
    const nameLen = view.getUint16(at + 26, true);
    const extraLen = view.getUint16(at + 28, true);
    if (flags !== e.flags) return mismatch("flags");
    if (method !== e.method) return mismatch("method");
    if (!sameBytes(bytes.subarray(at + 30, at + 30 + nameLen), e.nameBytes))
      return mismatch("name");
    const local = {
      size: view.getUint32(at + 22, true),
      compressedSize: view.getUint32(at + 18, true),
    };
    const crc = view.getUint32(at + 14, true);
    if (!applyZip64Extra(view, at + 30 + nameLen, at + 30 + nameLen + extraLen, local)) {
      return corrupt("malformed local extra field", label);
    }
    const deferred = (flags & 0x8) !== 0;
    // With a data descriptor (bit 3) the local values may be zero; otherwise they must agree.
    const agrees = (v: number, central: number) => v === central || (deferred && v === 0);
    if (!agrees(crc, e.crc)) return mismatch("CRC");
    if (!agrees(local.compressedSize, e.compressedSize)) return mismatch("compressed size");
    if (!agrees(local.size, e.size)) return mismatch("size");
    e.dataStart = at + 30 + nameLen + extraLen;
    e.end = e.dataStart + e.compressedSize;
    if (deferred) {
      const wide = e.zip64 ? 8 : 4;
      const signed = e.end + 4 <= bytes.length && view.getUint32(e.end, true) === SIG_DESCRIPTOR;
      const d = e.end + (signed ? 4 : 0);
      if (d + 4 + 2 * wide > dir.cdOffset) {
        return err(
          buildRefusal("overlapping-entries", label, "data descriptor runs into the directory"),
        );
      }
      const dCrc = view.getUint32(d, true);
      const dComp = wide === 8 ? readU64(view, d + 4) : view.getUint32(d + 4, true);
      const dSize = wide === 8 ? readU64(view, d + 12) : view.getUint32(d + 8, true);
      if (dCrc !== e.crc || dComp !== e.compressedSize || dSize !== e.size) {
        return mismatch("data descriptor");
      }
      e.end = d + 4 + 2 * wide;
    }
    if (e.end > bytes.length)
      return err(buildRefusal("truncated", label, "data runs past the end"));
  }
  // Entries and the central directory must tile the file: an overlap lets one byte range be
  // read as two entries, a gap hides bytes that another reader could take for an entry.
  const sorted = [...entries].sort((a, b) => a.localOffset - b.localOffset);
  let cursor = 0;
  for (const e of sorted) {
    const label = e.path || e.name;
    if (e.localOffset < cursor) {
      return err(
        buildRefusal(
          "overlapping-entries",
          label,
          `starts at ${e.localOffset}, inside an earlier entry`,
        ),
      );
    }
    if (e.localOffset > cursor)
      return corrupt(`${e.localOffset - cursor} unaccounted bytes before it`, label);
    cursor = e.end;
  }
  if (cursor > dir.cdOffset) {
    const last = sorted[sorted.length - 1]!;
    return err(
      buildRefusal(
        "overlapping-entries",
        last.path || last.name,
        "runs into the central directory",
      ),
    );
  }
  if (cursor < dir.cdOffset) return corrupt("unaccounted bytes before the central directory");
  return ok(undefined);
}

async function readEntryData(
  bytes: Uint8Array,
  e: CentralEntry,
  meter: ExpansionMeter,
  file: FileDelivery,
): Promise<ArchiveRefusal | null> {
  const data = bytes.subarray(e.dataStart, e.dataStart + e.compressedSize);
  let crc = 0;
  let produced = 0;
  const take = async (chunk: Uint8Array): Promise<ArchiveRefusal | null> => {
    produced += chunk.length;
    if (produced > e.size) {
      return buildRefusal("size-mismatch", e.path, `more than the declared ${e.size} bytes`);
    }
    const over = meter.addExpanded(chunk.length, e.path);
    if (over) return over;
    crc = updateCrc32(crc, chunk);
    return file.push(chunk);
  };
  if (e.method === 0) {
    if (e.compressedSize !== e.size) {
      return buildRefusal("size-mismatch", e.path, "stored entry with differing sizes");
    }
    for (let at = 0; at < data.length; at += STORED_SLICE_BYTES) {
      const slice = data.subarray(at, at + STORED_SLICE_BYTES);
      meter.addCompressed(slice.length);
      const r = await take(slice);
      if (r) return r;
    }
  } else {
    const outcome = await inflateStream(data, "deflate-raw", (n) => meter.addCompressed(n), take);
    if (outcome.kind === "refused") return outcome.refusal;
    if (outcome.kind === "failed") {
      const reason = outcome.truncated ? "truncated" : "corrupt-archive";
      return buildRefusal(reason, e.path, `deflate: ${describeError(outcome.error)}`);
    }
  }
  if (produced !== e.size) {
    return buildRefusal("size-mismatch", e.path, `${produced} bytes, declared ${e.size}`);
  }
  if (crc !== e.crc) {
    const hex = (n: number) => n.toString(16).padStart(8, "0");
    return buildRefusal("checksum-mismatch", e.path, `CRC ${hex(crc)}, declared ${hex(e.crc)}`);
  }
  return null;
}

/** Validates (and with a sink, delivers) a zip; `tally` collects what was admitted. */
export async function readZip(
  bytes: Uint8Array,
  limits: ArchiveLimits,
  sink: ArchiveSink | undefined,
  tally: ReadTally,
): Promise<Result<void, ArchiveRefusal>> {
  const dir = locateDirectory(bytes, limits);
  if (!dir.ok) return dir;
  const central = readCentral(bytes, dir.value, limits);
  if (!central.ok) return central;
  const local = checkLocalHeaders(bytes, central.value, dir.value);
  if (!local.ok) return local;
  const meter = new ExpansionMeter(limits);
  for (const e of central.value) {
    if (e.kind === "dir") {
      if (e.path === "") continue;
      tally.dirs += 1;
      if (sink?.directory) {
        const info = { path: e.path, kind: "dir" as const, executable: true };
        const r = await callSink(e.path, () => sink.directory!(info));
        if (r) return err(r);
      }
      continue;
    }
    const opened = await FileDelivery.open(sink, {
      path: e.path,
      kind: "file",
      executable: e.executable,
      size: e.size,
    });
    if (!(opened instanceof FileDelivery)) return err(opened);
    const r = (await readEntryData(bytes, e, meter, opened)) ?? (await opened.finish());
    if (r) {
      await opened.abort();
      return err(r);
    }
    tally.files.push({ path: e.path, bytes: opened.bytes });
    tally.expandedBytes += opened.bytes;
  }
  return ok(undefined);
}
