/**
 * @module runner/archive/unpack
 * Safe unpacking of submission archives (.tar.gz via `tar`'s parser, .zip via `yauzl`). The
 * libraries only parse; every byte is written by us into a fresh staging folder, so nothing a
 * header says can make us follow a link or write outside it. Invariants: only regular files and
 * folders are created; names are relative, without `..`, drive letters, backslashes or NUL, and
 * unique ignoring case; entry count, depth and the bytes actually written are capped. A rejected
 * archive leaves nothing behind (the staging folder is removed) and names the offending entry.
 */
import {
  chmodSync,
  closeSync,
  constants,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { Parser, type ReadEntry } from "tar";
import yauzl from "yauzl";
import { err, ok, type Result } from "../result.ts";

/** Caps applied while unpacking. */
export interface UnpackLimits {
  maxArchiveBytes: number;
  maxExpandedBytes: number;
  maxEntries: number;
  maxDepth: number;
}

/** Why an archive was refused; `entry` names the offending entry when there is one. */
export type UnpackError =
  | { reason: "unknown-format"; detail: string }
  | { reason: "archive-too-large"; bytes: number; limit: number }
  | { reason: "corrupt-archive"; detail: string; entry?: string }
  | { reason: "unsafe-path"; entry: string; detail: string }
  | { reason: "link-entry"; entry: string }
  | { reason: "special-entry"; entry: string; type: string }
  | { reason: "duplicate-entry"; entry: string; clashesWith: string }
  | { reason: "too-many-entries"; entry: string; limit: number }
  | { reason: "too-deep"; entry: string; limit: number }
  | { reason: "too-large-expanded"; entry: string; limit: number }
  | { reason: "unscannable-code"; entry: string; detail: string };

/** What was unpacked. */
export interface UnpackSummary {
  files: number;
  dirs: number;
  bytes: number;
}

/** Formats an unpack error as one line that names the entry. */
export function describeUnpackError(e: UnpackError): string {
  switch (e.reason) {
    case "unknown-format":
      return `not a .tar.gz or .zip archive (${e.detail})`;
    case "archive-too-large":
      return `archive is ${e.bytes} bytes; the limit is ${e.limit}`;
    case "corrupt-archive":
      return `corrupt archive${e.entry ? ` at ${JSON.stringify(e.entry)}` : ""}: ${e.detail}`;
    case "unsafe-path":
      return `unsafe path ${JSON.stringify(e.entry)}: ${e.detail}`;
    case "link-entry":
      return `link entry ${JSON.stringify(e.entry)} refused: links of any kind are not accepted`;
    case "special-entry":
      return `entry ${JSON.stringify(e.entry)} of type ${e.type} refused: only files and folders`;
    case "duplicate-entry":
      return `entry ${JSON.stringify(e.entry)} collides with ${JSON.stringify(e.clashesWith)}`;
    case "too-many-entries":
      return `more than ${e.limit} entries (at ${JSON.stringify(e.entry)})`;
    case "too-deep":
      return `entry ${JSON.stringify(e.entry)} is nested deeper than ${e.limit} levels`;
    case "too-large-expanded":
      return `expanded size exceeds ${e.limit} bytes (at ${JSON.stringify(e.entry)})`;
    case "unscannable-code":
      return `${JSON.stringify(e.entry)} refused: ${e.detail}`;
  }
}

// ─── Entry admission ───

type Kind = "file" | "dir";

/** Tracks admitted names and totals; shared by both formats so the rules cannot drift. */
class Admission {
  readonly #limits: UnpackLimits;
  readonly #names = new Map<string, { name: string; kind: Kind }>();
  entries = 0;
  bytes = 0;
  files = 0;
  dirs = 0;
  constructor(limits: UnpackLimits) {
    this.#limits = limits;
  }

  /** Validates one entry name and returns its normalized relative path. */
  admit(raw: string, kind: Kind): Result<string, UnpackError> {
    this.entries += 1;
    // `tar czf x.tgz .` stores the root itself as "./": a folder entry for what already exists.
    if (kind === "dir" && /^(\.\/?)+$/.test(raw)) return ok("");
    if (this.entries > this.#limits.maxEntries) {
      return err({ reason: "too-many-entries", entry: raw, limit: this.#limits.maxEntries });
    }
    const checked = normalizeEntryName(raw);
    if (!checked.ok) return checked;
    const rel = checked.value;
    const segments = rel.split("/");
    if (segments.length > this.#limits.maxDepth) {
      return err({ reason: "too-deep", entry: raw, limit: this.#limits.maxDepth });
    }
    // Parents are implicit folders: a file named like one of them is a collision.
    for (let i = 1; i <= segments.length; i += 1) {
      const name = segments.slice(0, i).join("/");
      const key = name.normalize("NFC").toLowerCase();
      const k: Kind = i === segments.length ? kind : "dir";
      const prior = this.#names.get(key);
      if (prior) {
        // Same folder named twice is harmless; anything else (a second file, a file over a
        // folder, or a case variant that would merge on a case-insensitive disk) is refused.
        if (prior.name !== name || prior.kind === "file" || k === "file") {
          return err({ reason: "duplicate-entry", entry: raw, clashesWith: prior.name });
        }
      } else {
        this.#names.set(key, { name, kind: k });
      }
    }
    if (kind === "file") this.files += 1;
    else this.dirs += 1;
    return { ok: true, value: rel };
  }

  /** Counts bytes about to be written; refuses once the expanded total passes the cap. */
  addBytes(entry: string, n: number): Result<void, UnpackError> {
    this.bytes += n;
    if (this.bytes > this.#limits.maxExpandedBytes) {
      return err({ reason: "too-large-expanded", entry, limit: this.#limits.maxExpandedBytes });
    }
    return ok(undefined);
  }
}

/** Normalizes an archive entry name to a safe relative POSIX path, or says why it is unsafe. */
export function normalizeEntryName(raw: string): Result<string, UnpackError> {
  const bad = (detail: string) => err<UnpackError>({ reason: "unsafe-path", entry: raw, detail });
  if (raw.includes("\0")) return bad("contains NUL");
  if (raw.includes("\\")) return bad("contains a backslash");
  if (raw.startsWith("/")) return bad("absolute path");
  if (/^[A-Za-z]:/.test(raw)) return bad("drive-letter path");
  let name = raw;
  while (name.startsWith("./")) name = name.slice(2);
  name = name.replace(/\/+$/, "");
  if (name === "" || name === ".") return bad("empty name");
  const segments = name.split("/");
  for (const s of segments) {
    if (s === "..") return bad("parent-folder segment");
    if (s === "" || s === ".") return bad("empty or '.' segment");
    if (s.length > 255) return bad("segment longer than 255 bytes");
  }
  return { ok: true, value: name };
}

// ─── Writing ───

const WRITE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

function ensureParent(root: string, rel: string): void {
  // Only we create folders under a fresh staging root, and we never create links there.
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true, mode: 0o755 });
}

// ─── Formats ───

/** Detects the format by magic bytes: gzip (tar.gz) or zip. */
export function detectArchiveFormat(bytes: Uint8Array): "tar.gz" | "zip" | null {
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return "tar.gz";
  if (
    bytes.length >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    bytes[2] === 3 &&
    bytes[3] === 4
  )
    return "zip";
  return null;
}

const TAR_FILE_TYPES = new Set(["File", "OldFile", "ContiguousFile"]);
const TAR_LINK_TYPES = new Set(["SymbolicLink", "Link"]);

function unpackTarGz(
  bytes: Uint8Array,
  root: string,
  adm: Admission,
): Promise<Result<void, UnpackError>> {
  return new Promise((resolve) => {
    let failure: UnpackError | null = null;
    let openFd: number | null = null;
    let settled = false;
    const closeOpen = () => {
      if (openFd !== null) closeSync(openFd);
      openFd = null;
    };
    const settle = () => {
      if (settled) return;
      settled = true;
      closeOpen();
      resolve(failure ? err(failure) : ok(undefined));
    };
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        if (failure) {
          entry.resume();
          return;
        }
        const fail = (e: UnpackError) => {
          failure = e;
          entry.resume();
          parser.abort(new Error(e.reason));
        };
        const type = String(entry.type);
        if (TAR_LINK_TYPES.has(type)) return fail({ reason: "link-entry", entry: entry.path });
        const kind: Kind | null = TAR_FILE_TYPES.has(type)
          ? "file"
          : type === "Directory"
            ? "dir"
            : null;
        if (!kind) return fail({ reason: "special-entry", entry: entry.path, type });
        const admitted = adm.admit(entry.path, kind);
        if (!admitted.ok) return fail(admitted.error);
        const rel = admitted.value;
        if (kind === "dir") {
          if (rel !== "") mkdirSync(path.join(root, rel), { recursive: true, mode: 0o755 });
          entry.resume();
          return;
        }
        ensureParent(root, rel);
        const mode = (entry.mode ?? 0o644) & 0o111 ? 0o755 : 0o644;
        openFd = openSync(path.join(root, rel), WRITE_FLAGS, mode);
        entry.on("data", (chunk: Buffer) => {
          if (failure || openFd === null) return;
          const counted = adm.addBytes(entry.path, chunk.length);
          if (!counted.ok) return fail(counted.error);
          writeSync(openFd, chunk);
        });
        entry.on("end", closeOpen);
      },
    });
    parser.on("error", (e: Error) => {
      failure ??= { reason: "corrupt-archive", detail: e.message };
      settle();
    });
    parser.on("abort", settle);
    parser.on("close", settle);
    parser.on("end", settle);
    try {
      parser.end(Buffer.from(bytes));
    } catch (e) {
      failure ??= { reason: "corrupt-archive", detail: (e as Error).message };
      settle();
    }
  });
}

function decodeZipName(entry: yauzl.Entry): string {
  const raw = entry.fileName as unknown as Buffer;
  // General-purpose bit 11 marks UTF-8 names; others are CP437, equal to latin1 for ASCII.
  return (entry.generalPurposeBitFlag & 0x800) !== 0
    ? raw.toString("utf8")
    : raw.toString("latin1");
}

function unpackZip(
  bytes: Uint8Array,
  root: string,
  adm: Admission,
): Promise<Result<void, UnpackError>> {
  return new Promise((resolve) => {
    yauzl.fromBuffer(
      Buffer.from(bytes),
      { lazyEntries: true, decodeStrings: false, validateEntrySizes: true },
      (openErr, zip) => {
        if (openErr || !zip) {
          resolve(err({ reason: "corrupt-archive", detail: openErr?.message ?? "unreadable" }));
          return;
        }
        let done = false;
        const finish = (r: Result<void, UnpackError>) => {
          if (done) return;
          done = true;
          zip.close();
          resolve(r);
        };
        zip.on("error", (e: Error) =>
          finish(err({ reason: "corrupt-archive", detail: e.message })),
        );
        zip.on("end", () => finish(ok(undefined)));
        zip.on("entry", (entry: yauzl.Entry) => {
          const name = decodeZipName(entry);
          const unixMode = (entry.externalFileAttributes >>> 16) & 0o170000;
          const madeOnUnix = entry.versionMadeBy >> 8 === 3;
          if (madeOnUnix && unixMode === 0o120000)
            return finish(err({ reason: "link-entry", entry: name }));
          if (madeOnUnix && unixMode !== 0 && unixMode !== 0o100000 && unixMode !== 0o040000) {
            return finish(
              err({ reason: "special-entry", entry: name, type: `mode ${unixMode.toString(8)}` }),
            );
          }
          const kind: Kind = name.endsWith("/") ? "dir" : "file";
          const admitted = adm.admit(name, kind);
          if (!admitted.ok) return finish(admitted);
          const rel = admitted.value;
          if (kind === "dir") {
            if (rel !== "") mkdirSync(path.join(root, rel), { recursive: true, mode: 0o755 });
            zip.readEntry();
            return;
          }
          if (
            entry.uncompressedSize > 0 &&
            adm.bytes + entry.uncompressedSize > Number.MAX_SAFE_INTEGER
          ) {
            return finish(err({ reason: "corrupt-archive", detail: "size overflow", entry: name }));
          }
          zip.openReadStream(entry, (streamErr, stream) => {
            if (streamErr || !stream) {
              return finish(
                err({
                  reason: "corrupt-archive",
                  detail: streamErr?.message ?? "no stream",
                  entry: name,
                }),
              );
            }
            ensureParent(root, rel);
            const fd = openSync(path.join(root, rel), WRITE_FLAGS, 0o644);
            let closed = false;
            const close = () => {
              if (!closed) closeSync(fd);
              closed = true;
            };
            stream.on("data", (chunk: Buffer) => {
              if (done) return;
              const counted = adm.addBytes(name, chunk.length);
              if (!counted.ok) {
                close();
                stream.destroy();
                return finish(counted);
              }
              writeSync(fd, chunk);
            });
            stream.on("error", (e: Error) => {
              close();
              finish(err({ reason: "corrupt-archive", detail: e.message, entry: name }));
            });
            stream.on("end", () => {
              close();
              if (!done) zip.readEntry();
            });
          });
        });
        zip.readEntry();
      },
    );
  });
}

/**
 * Unpacks `bytes` into `dest` (which must not exist). Writes into a sibling staging folder and
 * renames it into place only when every entry passed; on refusal the staging folder is removed.
 */
export async function unpackArchive(
  bytes: Uint8Array,
  dest: string,
  limits: UnpackLimits,
): Promise<Result<UnpackSummary, UnpackError>> {
  if (bytes.length > limits.maxArchiveBytes) {
    return err({ reason: "archive-too-large", bytes: bytes.length, limit: limits.maxArchiveBytes });
  }
  const format = detectArchiveFormat(bytes);
  if (!format) return err({ reason: "unknown-format", detail: "no gzip or zip signature" });
  const staging = `${dest}.staging-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { mode: 0o700 });
  const adm = new Admission(limits);
  let result: Result<void, UnpackError>;
  try {
    result =
      format === "zip"
        ? await unpackZip(bytes, staging, adm)
        : await unpackTarGz(bytes, staging, adm);
  } catch (e) {
    result = err({ reason: "corrupt-archive", detail: (e as Error).message });
  }
  if (!result.ok) {
    rmSync(staging, { recursive: true, force: true });
    return result;
  }
  renameSync(staging, dest);
  // Staging was private while unchecked; the sandbox's unprivileged uid must be able to read it.
  chmodSync(dest, 0o755);
  return ok({ files: adm.files, dirs: adm.dirs, bytes: adm.bytes });
}
