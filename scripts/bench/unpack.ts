/**
 * `npm run bench -- unpack`: the hostile-archive validator's figures. For each format, a 1 MiB
 * bomb expanding to 1 GiB is read in a fresh Node process (so peak RSS is that read's alone):
 * `bomb_peak_rss_delta_mb_*` and `bomb_refusal_ms_*`. Then a legitimate archive of 2000 small
 * files (20 MiB expanded) is validated and unpacked through the runner's adapter into a temp
 * folder: `unpack_mb_per_s_*` (expanded MiB per second, best of 3).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { unpackArchive } from "../../containers/runner/src/archive/unpack.ts";
import { buildTarGz, buildZip } from "@bouts/fixtures";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PROBE = path.join(ROOT, "packages/archive/test/measure-bomb.ts");
const FILES = 2000;
const FILE_BYTES = 10 * 1024;

function buildSourceLikeFile(seed: number): Buffer {
  let x = seed * 2654435761;
  const lines: string[] = [];
  let size = 0;
  while (size < FILE_BYTES) {
    x = (x * 1103515245 + 12345) >>> 0;
    const line = `export const v${x % 9973} = ${x.toString(16)} + ${(x >>> 7) % 1000}; // ${x.toString(36)}\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join("").slice(0, FILE_BYTES));
}

function measureBomb(format: "zip" | "tar.gz"): { rss: number; ms: number; reason: string } {
  const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", PROBE, format], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`bomb probe failed: ${r.stderr}`);
  const m = JSON.parse(r.stdout.trim().split("\n").pop()!) as {
    peakRssDeltaMb: number;
    elapsedMs: number;
    reason: string;
  };
  return { rss: m.peakRssDeltaMb, ms: m.elapsedMs, reason: m.reason };
}

export default async function (): Promise<void> {
  for (const format of ["zip", "tar.gz"] as const) {
    const suffix = format === "zip" ? "zip" : "targz";
    const m = measureBomb(format);
    console.log(`bomb_peak_rss_delta_mb_${suffix}: ${m.rss.toFixed(1)} (${m.reason})`);
    console.log(`bomb_refusal_ms_${suffix}: ${m.ms.toFixed(0)}`);
  }
  const entries = Array.from({ length: FILES }, (_, i) => ({
    name: `src/m${i % 40}/file-${i}.ts`,
    data: buildSourceLikeFile(i + 1),
  }));
  const expandedMb = (FILES * FILE_BYTES) / (1024 * 1024);
  const limits = {
    maxArchiveBytes: 64 << 20,
    maxExpandedBytes: 100 << 20,
    maxEntries: 5000,
    maxDepth: 20,
  };
  for (const [suffix, bytes] of [
    ["zip", buildZip(entries)],
    ["targz", buildTarGz(entries)],
  ] as const) {
    let best = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 3; run += 1) {
      const parent = mkdtempSync(path.join(tmpdir(), "bouts-bench-unpack-"));
      const started = performance.now();
      const r = await unpackArchive(bytes, path.join(parent, "out"), limits);
      const ms = performance.now() - started;
      rmSync(parent, { recursive: true, force: true });
      if (!r.ok) throw new Error(`legitimate archive refused: ${JSON.stringify(r.error)}`);
      best = Math.min(best, ms);
    }
    console.log(
      `unpack_mb_per_s_${suffix}: ${(expandedMb / (best / 1000)).toFixed(1)} (${expandedMb} MiB in ${FILES} files, ${(bytes.length / 1048576).toFixed(1)} MiB archive, ${best.toFixed(0)} ms)`,
    );
  }
}
