/**
 * @module runner/archive/unpack
 * The runner's Node adapter over `@bouts/archive`: the shared validator decides what is
 * admitted; this file only writes admitted entries into a fresh staging folder and renames it
 * into place. Invariants: every fs call is guarded (a failure is a refusal, never a crash);
 * files are created with O_EXCL|O_NOFOLLOW under a folder only we write to, so nothing in an
 * archive can make us follow a link or write outside it; a refused archive leaves nothing
 * behind (the staging folder is removed) and names the offending entry.
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
import {
  DEFAULT_ARCHIVE_LIMITS,
  describeAdmissionRefusal,
  isAdmissionRefusal,
  describeArchiveRefusal,
  detectArchiveFormat as detectFormat,
  normalizeEntryPath,
  readArchive,
  type AdmissionRefusal,
  type ArchiveFormat,
  type ArchiveLimits,
  type ArchiveRefusal,
  type ArchiveSink,
} from "@bouts/archive";
import { err, ok, type Result } from "@bouts/result";

/** Caps applied while unpacking; the byte and ratio caps default to `DEFAULT_ARCHIVE_LIMITS`. */
export interface UnpackLimits {
  maxArchiveBytes: number;
  maxExpandedBytes: number;
  maxEntries: number;
  maxDepth: number;
  maxSegmentBytes?: number;
  maxPathBytes?: number;
  maxRatio?: number;
}

/** Why an archive was refused: the validator's refusal, or code no scanner can read. */
export type UnpackError = ArchiveRefusal | AdmissionRefusal;

/** What was unpacked. */
export interface UnpackSummary {
  files: number;
  dirs: number;
  bytes: number;
}

/** Formats an unpack error as one line that names the entry. */
export function describeUnpackError(e: UnpackError): string {
  if (isAdmissionRefusal(e)) return describeAdmissionRefusal(e);
  return describeArchiveRefusal(e);
}

/** Detects the format by magic bytes: gzip (tar.gz) or zip. */
export function detectArchiveFormat(bytes: Uint8Array): ArchiveFormat | null {
  return detectFormat(bytes);
}

/** Normalizes an archive entry name to a safe relative POSIX path, or says why it is unsafe. */
export function normalizeEntryName(raw: string): Result<string, UnpackError> {
  return normalizeEntryPath(raw, DEFAULT_ARCHIVE_LIMITS);
}

function resolveArchiveLimits(limits: UnpackLimits): ArchiveLimits {
  return {
    maxArchiveBytes: limits.maxArchiveBytes,
    maxExpandedBytes: limits.maxExpandedBytes,
    maxEntries: limits.maxEntries,
    maxDepth: limits.maxDepth,
    maxSegmentBytes: limits.maxSegmentBytes ?? DEFAULT_ARCHIVE_LIMITS.maxSegmentBytes,
    maxPathBytes: limits.maxPathBytes ?? DEFAULT_ARCHIVE_LIMITS.maxPathBytes,
    maxRatio: limits.maxRatio ?? DEFAULT_ARCHIVE_LIMITS.maxRatio,
  };
}

const WRITE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** A sink writing admitted entries under `root` (paths arrive validated and normalized). */
function createStagingSink(root: string): ArchiveSink & { closeAll(): void } {
  const open = new Set<number>();
  const made = new Set<string>();
  const ensureDir = (dir: string) => {
    if (made.has(dir)) return;
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    made.add(dir);
  };
  const closeFd = (fd: number) => {
    if (!open.delete(fd)) return;
    closeSync(fd);
  };
  return {
    directory(entry) {
      ensureDir(path.join(root, entry.path));
    },
    openFile(entry) {
      const target = path.join(root, entry.path);
      // Only we create folders under a fresh staging root, and we never create links there.
      ensureDir(path.dirname(target));
      const fd = openSync(target, WRITE_FLAGS, entry.executable ? 0o755 : 0o644);
      open.add(fd);
      return {
        write(chunk) {
          for (let at = 0; at < chunk.length;) at += writeSync(fd, chunk, at);
        },
        close: () => closeFd(fd),
        abort: () => closeFd(fd),
      };
    },
    closeAll() {
      for (const fd of [...open]) {
        try {
          closeFd(fd);
        } catch {
          // Closing is best effort once the archive is refused.
        }
      }
    },
  };
}

function removeQuietly(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // Staging lives under the run's work dir, which is removed with the run anyway.
  }
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
  const archiveLimits = resolveArchiveLimits(limits);
  // Validate the cheap preconditions before touching the disk.
  if (bytes.length > archiveLimits.maxArchiveBytes || !detectFormat(bytes)) {
    const r = await readArchive(bytes, archiveLimits);
    if (!r.ok) return r;
  }
  const staging = `${dest}.staging-${process.pid}-${Date.now()}`;
  try {
    mkdirSync(staging, { mode: 0o700 });
  } catch (e) {
    return err({ reason: "unwritable-entry", detail: `staging folder: ${(e as Error).message}` });
  }
  const sink = createStagingSink(staging);
  const r = await readArchive(bytes, archiveLimits, sink);
  sink.closeAll();
  if (!r.ok) {
    removeQuietly(staging);
    return r;
  }
  try {
    renameSync(staging, dest);
    // Staging was private while unchecked; the sandbox's unprivileged uid must be able to read it.
    chmodSync(dest, 0o755);
  } catch (e) {
    removeQuietly(staging);
    return err({
      reason: "unwritable-entry",
      detail: `moving into place: ${(e as Error).message}`,
    });
  }
  return ok({ files: r.value.files.length, dirs: r.value.dirs, bytes: r.value.expandedBytes });
}
