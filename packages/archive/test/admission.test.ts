import { describe, expect, it } from "vitest";
import {
  checkAdmission,
  classifyFile,
  createAdmissionSink,
  DEFAULT_ARCHIVE_LIMITS,
  FileSampler,
  findWrapperFolder,
  HEAD_BYTES,
  readArchive,
  ZIP_TAIL_BYTES,
  type FileSample,
} from "../src/index.ts";
import { buildTarGz, buildZip } from "@bouts/fixtures";

const enc = new TextEncoder();

/** Samples `bytes` fed in pieces of `size`. */
function sampleIn(bytes: Uint8Array, size: number): FileSample {
  const s = new FileSampler();
  for (let at = 0; at < bytes.length; at += size) s.push(bytes.subarray(at, at + size));
  return s.sample();
}

/** A PE image whose DOS header points at a PE signature far past the head. */
function peImage(offset: number): Uint8Array {
  const b = new Uint8Array(offset + 64);
  b.set([0x4d, 0x5a]);
  new DataView(b.buffer).setUint32(0x3c, offset, true);
  b.set([0x50, 0x45, 0, 0], offset);
  return b;
}

const ELF = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]);
const EOCD = new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array<number>(18).fill(0)]);

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe("sampling a file as it streams", () => {
  const big = Uint8Array.from({ length: ZIP_TAIL_BYTES * 2 + 12345 }, (_, i) => (i * 31) & 0xff);

  it.each([1, 7, 4096, 65_536, big.length])(
    "keeps the same head and tail whatever the chunk size (%i)",
    (size) => {
      const s = sampleIn(big, size);
      expect(s.head).toEqual(big.subarray(0, HEAD_BYTES));
      expect(s.tail).toEqual(big.subarray(big.length - ZIP_TAIL_BYTES));
    },
  );

  it("keeps the whole of a short file as its tail", () => {
    const s = sampleIn(enc.encode("short"), 2);
    expect(new TextDecoder().decode(s.tail)).toBe("short");
  });

  it.each([1, 100, 8192])("finds a PE signature far past the head (chunks of %i)", (size) => {
    const image = peImage(10_000);
    expect(classifyFile("tool.txt", sampleIn(image, size))).toMatch(/Windows PE/);
  });
});

describe("code no scanner can read", () => {
  it("is recognised by name, by content under an innocent name, and as a zip named as Python", () => {
    expect(classifyFile("lib/x.pyc", null)).toMatch(/bytecode/);
    expect(classifyFile("lib/libz.so.1.2", null)).toMatch(/shared library/);
    expect(classifyFile("README.md", sampleIn(ELF, 4))).toMatch(/ELF/);
    // Text with a zip appended: Python runs it as a zip application.
    const appended = concat(enc.encode("print('hi')\n".repeat(10_000)), EOCD);
    expect(classifyFile("main.py", sampleIn(appended, 1000))).toMatch(
      /zip archive named as Python/,
    );
    expect(classifyFile("notes.txt", sampleIn(appended, 1000))).toBeNull();
    const zipapp = concat(enc.encode("#!/usr/bin/env python3\n"), EOCD);
    expect(classifyFile("run", sampleIn(zipapp, 5))).toMatch(/zip application/);
    expect(classifyFile("merge.mjs", sampleIn(enc.encode("export const x = 1;\n"), 3))).toBeNull();
  });
});

describe("admission", () => {
  const none = new Map<string, FileSample>();

  it("unwraps one top-level folder, as the runner does, but not a dependency folder", () => {
    expect(findWrapperFolder(["sol/merge.mjs", "sol/NOTES.md"])).toBe("sol/");
    expect(findWrapperFolder(["sol/merge.mjs"], ["other"])).toBe("");
    expect(findWrapperFolder(["merge.mjs", "sol/x"])).toBe("");
    expect(findWrapperFolder(["node_modules/a/index.js"])).toBe("");
  });

  it("refuses an archive without the module the challenge loads", () => {
    const r = checkAdmission(
      { files: ["NOTES.md", "src/merge.mjs"], samples: none },
      {
        module: "merge.mjs",
      },
    );
    expect(r).toMatchObject({
      ok: false,
      error: { reason: "nothing-to-load", entry: "merge.mjs" },
    });
    expect(
      checkAdmission(
        { files: ["sol/merge.mjs", "sol/NOTES.md"], samples: none },
        { module: "merge.mjs" },
      ),
    ).toEqual({ ok: true, value: { wrapper: "sol/" } });
  });

  it("refuses unscannable code naming the entry, but not inside a folder the runner removes", () => {
    expect(
      checkAdmission(
        { files: ["merge.mjs", "native/addon.node"], samples: none },
        { module: null },
      ),
    ).toMatchObject({
      ok: false,
      error: { reason: "unscannable-code", entry: "native/addon.node" },
    });
    expect(
      checkAdmission(
        { files: ["merge.mjs", "node_modules/x/addon.node"], samples: none },
        { module: "merge.mjs" },
      ).ok,
    ).toBe(true);
  });

  it.each(["zip", "tar.gz"] as const)(
    "samples every file of a %s while it streams, and passes its bytes on",
    async (format) => {
      const specs = [
        { name: "merge.mjs", data: "export function deepMerge() {}\n" },
        { name: "helper.txt", data: ELF },
      ];
      const bytes = format === "zip" ? buildZip(specs) : buildTarGz(specs);
      const seen: string[] = [];
      const admission = createAdmissionSink({
        openFile: (entry) => ({
          write: () => undefined,
          close: () => void seen.push(entry.path),
        }),
      });
      const read = await readArchive(bytes, DEFAULT_ARCHIVE_LIMITS, admission.sink);
      expect(read.ok).toBe(true);
      expect(seen.sort()).toEqual(["helper.txt", "merge.mjs"]);
      const files = read.ok ? read.value.files.map((f) => f.path) : [];
      expect(
        checkAdmission(
          { files, samples: admission.samples, dirs: admission.dirs },
          {
            module: "merge.mjs",
          },
        ),
      ).toMatchObject({
        ok: false,
        error: { reason: "unscannable-code", entry: "helper.txt" },
      });
    },
  );
});
