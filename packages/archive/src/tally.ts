/**
 * @module archive/tally
 * What a read admitted so far, filled in by the format readers. Pure data.
 */

/** Files and folders admitted, and the bytes the decompressors produced. */
export interface ReadTally {
  files: { path: string; bytes: number }[];
  dirs: number;
  expandedBytes: number;
}
