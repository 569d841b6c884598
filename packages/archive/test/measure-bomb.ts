/**
 * Child-process probe: builds a 1 GiB bomb, reads it with readArchive, and prints one JSON line
 * with the refusal, the elapsed time and the peak RSS above the RSS just before the read.
 * Run as `node --expose-gc --import tsx measure-bomb.ts <zip|tar.gz> [no-ratio]` so the figure
 * belongs to this read alone.
 */
import { DEFAULT_ARCHIVE_LIMITS, readArchive } from "../src/index.ts";
import { buildTarGz, buildTarGzBomb, buildZipBomb, STREAMING_BOMB } from "@bouts/fixtures";

const format = process.argv[2] === "zip" ? "zip" : "tar.gz";
const noRatio = process.argv.includes("no-ratio");
const bomb =
  format === "zip"
    ? await buildZipBomb(STREAMING_BOMB.zip)
    : await buildTarGzBomb(STREAMING_BOMB["tar.gz"]);
const limits = noRatio
  ? { ...DEFAULT_ARCHIVE_LIMITS, maxRatio: Number.POSITIVE_INFINITY }
  : DEFAULT_ARCHIVE_LIMITS;
// Warm up the code paths, then settle the heap, so the figure is the read's own.
await readArchive(buildTarGz([{ name: "a", data: "b" }]), limits);
(globalThis as { gc?: () => void }).gc?.();
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const r = await readArchive(bomb, limits);
const elapsedMs = performance.now() - started;
const peak = process.resourceUsage().maxRSS * 1024;
console.log(
  JSON.stringify({
    format,
    archiveBytes: bomb.length,
    reason: r.ok ? null : r.error.reason,
    entry: r.ok ? null : (r.error.entry ?? null),
    elapsedMs,
    peakRssDeltaMb: Math.max(0, peak - rssBefore) / (1024 * 1024),
  }),
);
