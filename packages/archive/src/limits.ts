/**
 * @module archive/limits
 * The caps an archive is held to, and their defaults. Every size is counted in bytes (UTF-8
 * bytes for names), never in characters. Pure: constants only.
 */

/** Caps applied while reading an archive; each is checked as bytes are produced. */
export interface ArchiveLimits {
  /** Largest accepted archive (compressed) size. */
  maxArchiveBytes: number;
  /** Most bytes the decompressors may produce (tar: headers and padding included). */
  maxExpandedBytes: number;
  /** Most entries (files and folders; tar metadata headers are not entries). */
  maxEntries: number;
  /** Most path segments in one entry. */
  maxDepth: number;
  /** Longest path segment, in UTF-8 bytes (Linux NAME_MAX is 255). */
  maxSegmentBytes: number;
  /** Longest normalized path, in UTF-8 bytes. */
  maxPathBytes: number;
  /** Highest expanded/compressed ratio, checked once output passes `RATIO_FLOOR_BYTES`. */
  maxRatio: number;
}

/** Output below this many bytes is never refused for its ratio (tiny files compress well). */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

/**
 * Defaults: 20 MiB archive, 100 MiB expanded, 5000 entries, depth 20, 255-byte segments,
 * 1024-byte paths (a runner workspace prefix stays far below PATH_MAX 4096), ratio 200.
 */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = Object.freeze({
  maxArchiveBytes: 20 * 1024 * 1024,
  maxExpandedBytes: 100 * 1024 * 1024,
  maxEntries: 5000,
  maxDepth: 20,
  maxSegmentBytes: 255,
  maxPathBytes: 1024,
  maxRatio: 200,
});
