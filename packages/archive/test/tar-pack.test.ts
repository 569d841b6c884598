/** packTar: what it packs, the platform's own archive reader reads back byte for byte. */
import { describe, expect, it } from "vitest";
import { DEFAULT_ARCHIVE_LIMITS, packTar, readArchive, type ArchiveSink } from "../src/index.ts";

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

describe("packTar", () => {
  it("packs files the reader reads back, long names included", async () => {
    const long = `${"a-long-folder-name/".repeat(8)}file.txt`;
    const files = [
      { path: "app.mjs", bytes: new TextEncoder().encode("export const x = 1;\n") },
      { path: "bin/run.sh", bytes: new TextEncoder().encode("#!/bin/sh\n"), executable: true },
      { path: long, bytes: new Uint8Array(1500).fill(7) },
      { path: "empty.txt", bytes: new Uint8Array(0) },
    ];
    const tar = packTar(files);
    expect(tar.ok).toBe(true);
    if (!tar.ok) return;
    const got = new Map<string, { bytes: number[]; executable: boolean }>();
    const sink: ArchiveSink = {
      openFile(entry) {
        const bytes: number[] = [];
        got.set(entry.path, { bytes, executable: entry.executable });
        return { write: (c) => void bytes.push(...c), close() {} };
      },
    };
    const read = await readArchive(await gzip(tar.value), DEFAULT_ARCHIVE_LIMITS, sink);
    expect(read.ok ? "ok" : read.error).toBe("ok");
    expect([...got.keys()].sort()).toEqual(files.map((f) => f.path).sort());
    for (const f of files) {
      expect(got.get(f.path)!.bytes).toEqual([...f.bytes]);
      expect(got.get(f.path)!.executable).toBe(f.executable === true);
    }
    expect(packTar(files).ok && packTar(files)).toEqual(tar); // deterministic
  });

  it("refuses a name ustar cannot hold", () => {
    const r = packTar([{ path: "x".repeat(300), bytes: new Uint8Array(1) }]);
    expect(r).toEqual({ ok: false, error: { path: "x".repeat(300) } });
  });
});
