/**
 * @module archive/read-archive
 * The entry point: detect the format, check the archive size, then read it with the format's
 * reader. Invariants: never throws (any exception from decoding or from the sink becomes a
 * refusal); with a sink, only admitted entries are delivered, and a refusal may come after
 * some were (the caller discards its output on refusal).
 */
import type { ArchiveSink } from "./delivery.ts";
import { describeError } from "./delivery.ts";
import type { ArchiveLimits } from "./limits.ts";
import { buildRefusal, type ArchiveRefusal } from "./refusal.ts";
import { err, ok, type Result } from "@bouts/result";
import type { ReadTally } from "./tally.ts";
import { readTarGz } from "./tar.ts";
import { readZip } from "./zip.ts";

/** The archive formats accepted. */
export type ArchiveFormat = "tar.gz" | "zip";

/** What an accepted archive held: files in archive order, the folder count, content bytes. */
export interface ArchiveSummary {
  format: ArchiveFormat;
  files: { path: string; bytes: number }[];
  dirs: number;
  /** Total bytes of file content. */
  expandedBytes: number;
}

/** Detects the format by magic bytes: gzip (taken as tar.gz) or a zip local header. */
export function detectArchiveFormat(bytes: Uint8Array): ArchiveFormat | null {
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

/**
 * Validates an archive against `limits`; with a sink, also delivers each admitted entry's
 * bytes as they are produced. Never throws.
 * @example
 * const r = await readArchive(bytes, DEFAULT_ARCHIVE_LIMITS);
 * if (!r.ok) console.log(describeArchiveRefusal(r.error));
 */
export async function readArchive(
  bytes: Uint8Array,
  limits: ArchiveLimits,
  sink?: ArchiveSink,
): Promise<Result<ArchiveSummary, ArchiveRefusal>> {
  if (bytes.length > limits.maxArchiveBytes) {
    return err(
      buildRefusal("archive-too-large", undefined, `${bytes.length} bytes`, {
        limit: limits.maxArchiveBytes,
      }),
    );
  }
  const format = detectArchiveFormat(bytes);
  if (!format) return err(buildRefusal("unknown-format", undefined, "no gzip or zip signature"));
  const tally: ReadTally = { files: [], dirs: 0, expandedBytes: 0 };
  try {
    const r =
      format === "zip"
        ? await readZip(bytes, limits, sink, tally)
        : await readTarGz(bytes, limits, sink, tally);
    if (!r.ok) return r;
  } catch (e) {
    return err(buildRefusal("corrupt-archive", undefined, `unexpected: ${describeError(e)}`));
  }
  return ok({ format, ...tally });
}
