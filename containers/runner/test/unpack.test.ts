/**
 * The runner's unpack adapter over `@bouts/archive`: what lands on disk, what is refused, and
 * that a refusal leaves nothing behind. The validator's own corpus runs in packages/archive.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeEntryName, unpackArchive, type UnpackLimits } from "../src/archive/unpack.ts";
import {
  buildTarGz,
  buildTarGzBomb,
  buildZip,
  buildZipBomb,
  type TarEntry,
  type ZipEntry,
} from "./archive-builders.ts";

const LIMITS: UnpackLimits = {
  maxArchiveBytes: 1 << 20,
  maxExpandedBytes: 1 << 16,
  maxEntries: 20,
  maxDepth: 4,
};

function freshDest(): { parent: string; dest: string } {
  const parent = mkdtempSync(path.join(tmpdir(), "bouts-unpack-"));
  return { parent, dest: path.join(parent, "out") };
}

async function unpackTar(entries: TarEntry[], limits = LIMITS) {
  const { parent, dest } = freshDest();
  const r = await unpackArchive(buildTarGz(entries), dest, limits);
  return { r, parent, dest };
}

async function unpackZip(entries: ZipEntry[], limits = LIMITS) {
  const { parent, dest } = freshDest();
  const r = await unpackArchive(buildZip(entries), dest, limits);
  return { r, parent, dest };
}

describe("unpacking a tar.gz", () => {
  it("unpacks files and folders and counts the bytes written", async () => {
    const { r, dest } = await unpackTar([
      { name: "src/", type: "5" },
      { name: "src/index.mjs", data: "export {}\n" },
      { name: "./NOTES.md", data: "# notes\n" },
    ]);
    expect(r).toEqual({ ok: true, value: { files: 2, dirs: 1, bytes: 18 } });
    expect(readFileSync(path.join(dest, "src/index.mjs"), "utf8")).toBe("export {}\n");
    expect(readFileSync(path.join(dest, "NOTES.md"), "utf8")).toBe("# notes\n");
  });

  it("accepts the root folder entry that `tar czf x.tgz .` writes", async () => {
    const { r, dest } = await unpackTar([
      { name: "./", type: "5" },
      { name: "./a.txt", data: "a" },
    ]);
    expect(r.ok).toBe(true);
    expect(readFileSync(path.join(dest, "a.txt"), "utf8")).toBe("a");
  });

  const refusals: [string, TarEntry[], string, string][] = [
    ["parent traversal", [{ name: "../evil.sh", data: "x" }], "unsafe-path", "../evil.sh"],
    ["nested traversal", [{ name: "a/../../evil", data: "x" }], "unsafe-path", "a/../../evil"],
    [
      "an absolute path",
      [{ name: "/etc/cron.d/evil", data: "x" }],
      "unsafe-path",
      "/etc/cron.d/evil",
    ],
    ["a drive path", [{ name: "C:/evil", data: "x" }], "unsafe-path", "C:/evil"],
    ["a backslash path", [{ name: "..\\evil", data: "x" }], "unsafe-path", "..\\evil"],
    ["a symlink", [{ name: "link", type: "2", linkname: "/etc/passwd" }], "link-entry", "link"],
    [
      "a hard link",
      [
        { name: "a", data: "x" },
        { name: "hard", type: "1", linkname: "a" },
      ],
      "link-entry",
      "hard",
    ],
    ["a device", [{ name: "dev", type: "3" }], "special-entry", "dev"],
    ["a fifo", [{ name: "fifo", type: "6" }], "special-entry", "fifo"],
    [
      "a duplicate name",
      [
        { name: "a.txt", data: "1" },
        { name: "a.txt", data: "2" },
      ],
      "duplicate-entry",
      "a.txt",
    ],
    [
      "names colliding by case",
      [
        { name: "Readme.md", data: "1" },
        { name: "README.md", data: "2" },
      ],
      "duplicate-entry",
      "README.md",
    ],
    [
      "a file over a folder",
      [
        { name: "a/b", data: "1" },
        { name: "a", data: "2" },
      ],
      "duplicate-entry",
      "a",
    ],
    ["too deep a path", [{ name: "a/b/c/d/e", data: "1" }], "too-deep", "a/b/c/d/e"],
  ];
  for (const [what, entries, reason, entry] of refusals) {
    it(`refuses ${what}, names the entry and writes nothing`, async () => {
      const { r, parent } = await unpackTar([{ name: "ok.txt", data: "fine" }, ...entries]);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.reason).toBe(reason);
      expect("entry" in r.error ? r.error.entry : "").toBe(entry);
      expect(readdirSync(parent)).toEqual([]);
    });
  }

  it("refuses too many entries", async () => {
    const entries = Array.from({ length: 21 }, (_, i) => ({ name: `f${i}`, data: "x" }));
    const { r } = await unpackTar(entries);
    expect(!r.ok && r.error.reason).toBe("too-many-entries");
  });

  it("refuses an archive that expands past the limit, counting bytes actually written", async () => {
    const { r, parent } = await unpackTar([{ name: "bomb", data: Buffer.alloc(70_000) }]);
    expect(!r.ok && r.error).toMatchObject({ reason: "too-large-expanded", entry: "bomb" });
    expect(readdirSync(parent)).toEqual([]);
  });

  it("refuses an archive larger than the archive limit before reading it", async () => {
    const { r } = await unpackTar([{ name: "a", data: "x" }], { ...LIMITS, maxArchiveBytes: 10 });
    expect(!r.ok && r.error.reason).toBe("archive-too-large");
  });

  it("refuses bytes that are neither gzip nor zip", async () => {
    const { dest } = freshDest();
    const r = await unpackArchive(Buffer.from("just text"), dest, LIMITS);
    expect(!r.ok && r.error.reason).toBe("unknown-format");
    expect(existsSync(dest)).toBe(false);
  });
});

describe("unpacking a zip", () => {
  it("unpacks files", async () => {
    const { r, dest } = await unpackZip([
      { name: "dir/" },
      { name: "dir/a.py", data: "print(1)\n" },
    ]);
    expect(r.ok).toBe(true);
    expect(readFileSync(path.join(dest, "dir/a.py"), "utf8")).toBe("print(1)\n");
  });
  const refusals: [string, ZipEntry[], string][] = [
    ["traversal", [{ name: "../../evil", data: "x" }], "unsafe-path"],
    ["an absolute path", [{ name: "/tmp/evil", data: "x" }], "unsafe-path"],
    ["a symlink", [{ name: "link", data: "/etc/passwd", unixMode: 0o120777 }], "link-entry"],
    ["a device", [{ name: "dev", unixMode: 0o020644 }], "special-entry"],
    [
      "a case collision",
      [
        { name: "a.js", data: "1" },
        { name: "A.js", data: "2" },
      ],
      "duplicate-entry",
    ],
  ];
  for (const [what, entries, reason] of refusals) {
    it(`refuses ${what} and writes nothing`, async () => {
      const { r, parent } = await unpackZip([{ name: "ok.txt", data: "fine" }, ...entries]);
      expect(!r.ok && r.error.reason).toBe(reason);
      expect(readdirSync(parent)).toEqual([]);
    });
  }
  it("refuses a zip bomb by the bytes it would write", async () => {
    const { r } = await unpackZip([{ name: "zeros", data: Buffer.alloc(200_000) }]);
    expect(!r.ok && r.error.reason).toBe("too-large-expanded");
  });
});

describe("names and limits counted in bytes", () => {
  const RUNNER: UnpackLimits = {
    ...LIMITS,
    maxArchiveBytes: 20 << 20,
    maxDepth: 20,
    maxEntries: 5000,
  };
  const E200 = "é".repeat(200);
  const LONG = Array.from({ length: 17 }, (_, i) => `${i}`.padEnd(250, "x")).join("/");
  const cases: [string, Buffer][] = [
    ["a 200 x é zip name", buildZip([{ name: E200, data: "x" }])],
    ["a 200 x é tar name", buildTarGz([{ name: "x", pax: { path: E200 }, data: "x" }])],
    ["a 4266-byte zip path", buildZip([{ name: LONG, data: "x" }])],
    ["a 4266-byte tar path", buildTarGz([{ name: "x", longName: LONG, data: "x" }])],
  ];
  for (const [what, bytes] of cases) {
    it(`refuses ${what} as name-too-long without throwing and writes nothing`, async () => {
      const { parent, dest } = freshDest();
      const r = await unpackArchive(bytes, dest, RUNNER);
      expect(!r.ok && r.error.reason).toBe("name-too-long");
      expect(readdirSync(parent)).toEqual([]);
    });
  }

  it("keeps the execute bit of a file", async () => {
    const { r, dest } = await unpackZip([
      { name: "run.sh", data: "#!/bin/sh\n", unixMode: 0o100755 },
    ]);
    expect(r.ok).toBe(true);
    expect(statSync(path.join(dest, "run.sh")).mode & 0o111).not.toBe(0);
  });

  it("answers an unwritable destination with a refusal instead of throwing", async () => {
    const { parent } = freshDest();
    const r = await unpackArchive(
      buildTarGz([{ name: "a", data: "b" }]),
      path.join(parent, "missing", "out"),
      LIMITS,
    );
    expect(!r.ok && r.error.reason).toBe("unwritable-entry");
  });

  for (const [format, build] of [
    ["zip", () => buildZipBomb({ declaredMib: 64 })],
    ["tar.gz", () => buildTarGzBomb({ perEntryMib: 64 })],
  ] as const) {
    it(`refuses a 1 GiB ${format} bomb while streaming and leaves nothing behind`, async () => {
      const { parent, dest } = freshDest();
      const r = await unpackArchive(await build(), dest, {
        ...RUNNER,
        maxExpandedBytes: 100 << 20,
      });
      expect(!r.ok && r.error).toMatchObject({ reason: "ratio-exceeded", entry: "zeros.bin" });
      expect(readdirSync(parent)).toEqual([]);
    }, 20_000);
  }
});

describe("entry names", () => {
  it("strips leading ./ and trailing slashes", () => {
    expect(normalizeEntryName("./a/b/")).toEqual({ ok: true, value: "a/b" });
  });
  it("refuses NUL and empty segments", () => {
    expect(normalizeEntryName("a\0b").ok).toBe(false);
    expect(normalizeEntryName("a//b").ok).toBe(false);
  });
});
