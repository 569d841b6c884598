/**
 * The whole corpus through readArchive: each hostile archive gets its specific refusal naming
 * the right entry; each legitimate one passes with its exact summary. Also the sink contract:
 * delivered bytes, guarded callbacks, and no throw.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_ARCHIVE_LIMITS,
  describeArchiveRefusal,
  detectArchiveFormat,
  normalizeEntryPath,
  readArchive,
  updateCrc32,
  type ArchiveEntryInfo,
  type ArchiveSink,
} from "../src/index.ts";
import { buildCorpus, buildLegitCorpus, buildTarGz, buildZip } from "@bouts/fixtures";

describe("the hostile corpus", () => {
  for (const c of buildCorpus()) {
    it(`refuses ${c.name} as ${c.refusal!.reason}`, async () => {
      const bytes = await c.build();
      const r = await readArchive(bytes, DEFAULT_ARCHIVE_LIMITS);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.reason).toBe(c.refusal!.reason);
      if (c.refusal!.entry !== undefined) expect(r.error.entry).toBe(c.refusal!.entry);
      expect(describeArchiveRefusal(r.error)).toContain(r.error.reason);
    }, 20_000);
  }
});

describe("legitimate archives", () => {
  for (const c of buildLegitCorpus()) {
    it(`accepts ${c.name} with an exact summary`, async () => {
      const r = await readArchive(await c.build(), DEFAULT_ARCHIVE_LIMITS);
      expect(r).toEqual({ ok: true, value: c.summary });
    });
  }

  it("delivers every admitted entry's bytes to the sink in order", async () => {
    const seen: { info: ArchiveEntryInfo; text: string; closed: boolean }[] = [];
    const dirs: string[] = [];
    const sink: ArchiveSink = {
      openFile(info) {
        const rec = { info, text: "", closed: false };
        seen.push(rec);
        const dec = new TextDecoder();
        return {
          write: (chunk) => void (rec.text += dec.decode(chunk, { stream: true })),
          close: () => void (rec.closed = true),
        };
      },
      directory: (info) => void dirs.push(info.path),
    };
    for (const c of buildLegitCorpus()) {
      seen.length = 0;
      dirs.length = 0;
      const r = await readArchive(await c.build(), DEFAULT_ARCHIVE_LIMITS, sink);
      expect(r.ok).toBe(true);
      expect(seen.map((s) => s.info.path)).toEqual(c.summary!.files.map((f) => f.path));
      expect(seen.every((s) => s.closed)).toBe(true);
      expect(dirs).toEqual(["src"]);
      const run = seen.find((s) => s.info.path.endsWith("run.sh"))!;
      expect(run.info.executable).toBe(true);
      expect(run.text).toBe("#!/bin/sh\n");
      expect(seen.find((s) => s.info.path === "src/index.mjs")!.info.executable).toBe(false);
    }
  });

  it("delivers a large file in pieces with the right bytes", async () => {
    const data = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 31) % 256));
    for (const bytes of [
      buildZip([{ name: "big.bin", data }]),
      buildTarGz([{ name: "big.bin", data }]),
    ]) {
      const chunks: Uint8Array[] = [];
      const r = await readArchive(bytes, DEFAULT_ARCHIVE_LIMITS, {
        openFile: () => ({ write: (c) => void chunks.push(c.slice()), close: () => {} }),
      });
      expect(r.ok).toBe(true);
      expect(Buffer.concat(chunks).equals(data)).toBe(true);
    }
  });
});

describe("the sink contract", () => {
  const archives = {
    zip: () => buildZip([{ name: "a/b.txt", data: "hello" }]),
    "tar.gz": () => buildTarGz([{ name: "a/b.txt", data: "hello" }]),
  };
  for (const [format, build] of Object.entries(archives)) {
    it(`turns a throwing openFile into unwritable-entry naming the entry (${format})`, async () => {
      const r = await readArchive(build(), DEFAULT_ARCHIVE_LIMITS, {
        openFile: () => {
          throw Object.assign(new Error("name too long"), { code: "ENAMETOOLONG" });
        },
      });
      expect(!r.ok && r.error).toMatchObject({ reason: "unwritable-entry", entry: "a/b.txt" });
      expect(!r.ok && r.error.detail).toContain("ENAMETOOLONG");
    });

    it(`turns a rejecting write into unwritable-entry and aborts the file (${format})`, async () => {
      let aborted = false;
      const r = await readArchive(build(), DEFAULT_ARCHIVE_LIMITS, {
        openFile: () => ({
          write: () => Promise.reject(new Error("disk full")),
          close: () => {},
          abort: () => void (aborted = true),
        }),
      });
      expect(!r.ok && r.error).toMatchObject({ reason: "unwritable-entry", entry: "a/b.txt" });
      expect(aborted).toBe(true);
    });

    it(`turns a throwing close into unwritable-entry (${format})`, async () => {
      const r = await readArchive(build(), DEFAULT_ARCHIVE_LIMITS, {
        openFile: () => ({
          write: () => {},
          close: () => {
            throw new Error("EIO");
          },
        }),
      });
      expect(!r.ok && r.error.reason).toBe("unwritable-entry");
    });
  }

  it("opens no file for an entry refused by name", async () => {
    const opened: string[] = [];
    const r = await readArchive(
      buildZip([{ name: "é".repeat(200), data: "x" }]),
      DEFAULT_ARCHIVE_LIMITS,
      {
        openFile: (info) => {
          opened.push(info.path);
          return { write: () => {}, close: () => {} };
        },
      },
    );
    expect(!r.ok && r.error.reason).toBe("name-too-long");
    expect(opened).toEqual([]);
  });

  it("never hands a nested archive's bytes to the sink", async () => {
    const written: number[] = [];
    const gz = buildTarGz([{ name: "x", data: "y" }]);
    const r = await readArchive(buildZip([{ name: "payload", data: gz }]), DEFAULT_ARCHIVE_LIMITS, {
      openFile: () => ({ write: (c) => void written.push(c.length), close: () => {} }),
    });
    expect(!r.ok && r.error.reason).toBe("nested-archive");
    expect(written).toEqual([]);
  });
});

describe("limits", () => {
  it("refuses an archive over the expanded limit as bytes are produced", async () => {
    const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxExpandedBytes: 65_536 };
    for (const bytes of [
      buildZip([{ name: "big", data: Buffer.alloc(70_000, 1) }], {}),
      buildTarGz([{ name: "big", data: Buffer.alloc(70_000, 1) }]),
    ]) {
      const r = await readArchive(bytes, limits);
      expect(!r.ok && r.error).toMatchObject({ reason: "too-large-expanded", entry: "big" });
    }
  });

  it("refuses a lying zip size before the data is inflated past the declared size", async () => {
    const r = await readArchive(
      buildZip([{ name: "lie", data: Buffer.alloc(5_000_000), size: 10 }]),
      DEFAULT_ARCHIVE_LIMITS,
    );
    expect(!r.ok && r.error).toMatchObject({ reason: "size-mismatch", entry: "lie" });
  });

  it("counts segments and paths in bytes, not characters", () => {
    const limits = { maxSegmentBytes: 255, maxPathBytes: 1024 };
    expect(normalizeEntryPath("é".repeat(127), limits).ok).toBe(true);
    expect(normalizeEntryPath("é".repeat(128), limits)).toMatchObject({
      ok: false,
      error: { reason: "name-too-long" },
    });
    expect(normalizeEntryPath(Array(5).fill("a".repeat(204)).join("/"), limits).ok).toBe(true);
    expect(normalizeEntryPath(Array(5).fill("a".repeat(205)).join("/"), limits).ok).toBe(false);
  });

  it("strips leading ./ and trailing slashes", () => {
    expect(normalizeEntryPath("././a/b/", DEFAULT_ARCHIVE_LIMITS)).toEqual({
      ok: true,
      value: "a/b",
    });
  });

  it("refuses an archive over the archive limit before reading it", async () => {
    const r = await readArchive(buildZip([{ name: "a" }]), {
      ...DEFAULT_ARCHIVE_LIMITS,
      maxArchiveBytes: 10,
    });
    expect(!r.ok && r.error.reason).toBe("archive-too-large");
  });
});

describe("formats", () => {
  it("detects gzip and zip by magic bytes", () => {
    expect(detectArchiveFormat(buildTarGz([]))).toBe("tar.gz");
    expect(detectArchiveFormat(buildZip([{ name: "a" }]))).toBe("zip");
    expect(detectArchiveFormat(new TextEncoder().encode("hello"))).toBeNull();
  });

  it("computes the standard CRC-32 check value", () => {
    expect(updateCrc32(0, new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
    const whole = updateCrc32(0, new TextEncoder().encode("hello world"));
    const split = updateCrc32(
      updateCrc32(0, new TextEncoder().encode("hello")),
      new TextEncoder().encode(" world"),
    );
    expect(split).toBe(whole);
  });

  it("names the entry and the rule in one line", () => {
    const line = describeArchiveRefusal({
      reason: "link-entry",
      entry: "a/link",
      detail: "symbolic link",
    });
    expect(line).toBe('link-entry "a/link": links of any kind are not accepted (symbolic link)');
  });
});
