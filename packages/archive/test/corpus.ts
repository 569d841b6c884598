/**
 * The hostile-archive corpus: every class of malicious or malformed archive the validator must
 * refuse, built programmatically for both formats where the class applies, plus legitimate
 * archives with their exact summaries. Shared by the package's tests, the runner's service
 * test and the benchmark. Node-only: test code.
 */
import { gzipSync } from "node:zlib";
import type { ArchiveRefusalReason, ArchiveSummary } from "../src/index.ts";
import {
  buildTar,
  buildTarGz,
  buildTarGzBomb,
  buildZip,
  buildZipBomb,
  buildZipLocal,
  type TarSpec,
  type ZipSpec,
} from "./builders.ts";

/** A refusal the corpus expects: the reason, and the entry when there is one. */
export interface ExpectedRefusal {
  reason: ArchiveRefusalReason;
  entry?: string;
}

/** One corpus archive. */
export interface CorpusCase {
  name: string;
  format: "zip" | "tar.gz" | "other";
  build: () => Buffer | Promise<Buffer>;
  refusal?: ExpectedRefusal;
  summary?: ArchiveSummary;
}

const E200 = "é".repeat(200); // 200 characters, 400 bytes
const LONG_PATH = Array.from({ length: 17 }, (_, i) => `${i}`.padEnd(250, "x")).join("/"); // 4266 bytes
const TOO_DEEP = Array.from({ length: 21 }, (_, i) => `d${i}`).join("/");
const NFC_E = "caf\u00e9.txt";
const NFD_E = "cafe\u0301.txt";
const GZIP_INNER = gzipSync(Buffer.from("inner"));
const TAR_INNER = buildTar([{ name: "inner.txt", data: "x" }]);

function refuse(
  name: string,
  format: "zip" | "tar.gz",
  build: () => Buffer | Promise<Buffer>,
  reason: ArchiveRefusalReason,
  entry?: string,
): CorpusCase {
  return { name, format, build, refusal: entry === undefined ? { reason } : { reason, entry } };
}

const zip = (specs: ZipSpec[], o?: Parameters<typeof buildZip>[1]) => () => buildZip(specs, o);
const tgz = (specs: TarSpec[], o?: Parameters<typeof buildTarGz>[1]) => () => buildTarGz(specs, o);
const ok: ZipSpec & TarSpec = { name: "ok.txt", data: "fine\n" };

/** Cases refused the same way in both formats, built from one list of entries. */
const BOTH: [string, (ZipSpec & TarSpec)[], ArchiveRefusalReason, string | undefined][] = [
  ["a 200 x é name (400 bytes)", [{ name: E200, data: "x" }], "name-too-long", E200],
  [
    "a path over 4096 bytes in 17 segments",
    [{ name: LONG_PATH, data: "x" }],
    "name-too-long",
    LONG_PATH,
  ],
  ["a path 21 levels deep", [{ name: TOO_DEEP, data: "x" }], "too-deep", TOO_DEEP],
  ["parent traversal", [{ name: "../evil.sh", data: "x" }], "unsafe-path", "../evil.sh"],
  ["nested traversal", [{ name: "a/../../evil", data: "x" }], "unsafe-path", "a/../../evil"],
  [
    "an absolute path",
    [{ name: "/etc/cron.d/evil", data: "x" }],
    "unsafe-path",
    "/etc/cron.d/evil",
  ],
  ["a backslash path", [{ name: "..\\evil", data: "x" }], "unsafe-path", "..\\evil"],
  ["a drive-letter path", [{ name: "C:/evil", data: "x" }], "unsafe-path", "C:/evil"],
  ["an empty segment", [{ name: "a//b", data: "x" }], "unsafe-path", "a//b"],
  ["a C0 control character", [{ name: "a\u0001b.txt", data: "x" }], "unsafe-name", "a\u0001b.txt"],
  ["a newline in a name", [{ name: "a\nb.txt", data: "x" }], "unsafe-name", "a\nb.txt"],
  ["DEL in a name", [{ name: "a\u007fb.txt", data: "x" }], "unsafe-name", "a\u007fb.txt"],
  ["a C1 control character", [{ name: "a\u0085b.txt", data: "x" }], "unsafe-name", "a\u0085b.txt"],
  [
    "an RTL override",
    [{ name: "invoice\u202Etxt.exe", data: "x" }],
    "unsafe-name",
    "invoice\u202Etxt.exe",
  ],
  ["a right-to-left mark", [{ name: "a\u200Fb.txt", data: "x" }], "unsafe-name", "a\u200Fb.txt"],
  ["an Arabic letter mark", [{ name: "a\u061Cb.txt", data: "x" }], "unsafe-name", "a\u061Cb.txt"],
  ["a bidi isolate", [{ name: "a\u2067b.txt", data: "x" }], "unsafe-name", "a\u2067b.txt"],
  [
    "a nested .zip by name",
    [{ name: "lib/inner.zip", data: "x" }],
    "nested-archive",
    "lib/inner.zip",
  ],
  ["a nested .tgz by name", [{ name: "inner.tgz", data: "x" }], "nested-archive", "inner.tgz"],
  ["a nested .jar by name", [{ name: "a.jar", data: "x" }], "nested-archive", "a.jar"],
  ["a nested .whl by name", [{ name: "a-1.0.whl", data: "x" }], "nested-archive", "a-1.0.whl"],
  [
    "gzip content under another name",
    [{ name: "data.bin", data: GZIP_INNER }],
    "nested-archive",
    "data.bin",
  ],
  [
    "tar content under another name",
    [{ name: "data.dat", data: TAR_INNER }],
    "nested-archive",
    "data.dat",
  ],
  [
    "zip content under another name",
    [{ name: "x.dat", data: buildZip([{ name: "i" }]) }],
    "nested-archive",
    "x.dat",
  ],
  [
    "xz content",
    [{ name: "x.dat", data: Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0, 1]) }],
    "nested-archive",
    "x.dat",
  ],
  [
    "7z content",
    [{ name: "x.dat", data: Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0]) }],
    "nested-archive",
    "x.dat",
  ],
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
    "names colliding by case folding (ß/SS)",
    [
      { name: "straße.txt", data: "1" },
      { name: "STRASSE.txt", data: "2" },
    ],
    "duplicate-entry",
    "STRASSE.txt",
  ],
  [
    "names colliding after NFC",
    [
      { name: NFC_E, data: "1" },
      { name: NFD_E, data: "2" },
    ],
    "duplicate-entry",
    NFD_E,
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
];

/** The bombs that only streaming can stop (used by the memory test and the benchmark). */
export const STREAMING_BOMB = {
  zip: { mib: 1024, declaredMib: 64 },
  "tar.gz": { mib: 1024, perEntryMib: 64 },
} as const;

const RAW_BAD_UTF8 = Buffer.from([0x66, 0xff, 0x2e, 0x74]);

/** Every case, hostile and legitimate; bombs are built on demand. */
export function buildCorpus(): CorpusCase[] {
  const cases: CorpusCase[] = [];
  for (const [what, entries, reason, entry] of BOTH) {
    cases.push(refuse(`zip: ${what}`, "zip", zip([ok, ...entries]), reason, entry));
    // Tar names over 100 bytes travel in a pax record; one case also goes through GNU 'L'.
    const tarEntries = entries.map((e) =>
      Buffer.byteLength(e.name as string) > 100 ? { ...e, pax: { path: e.name as string } } : e,
    );
    cases.push(refuse(`tar.gz: ${what}`, "tar.gz", tgz([ok, ...tarEntries]), reason, entry));
  }
  cases.push(
    refuse(
      "tar.gz: a path over 4096 bytes as a GNU long name",
      "tar.gz",
      tgz([ok, { name: "short", longName: LONG_PATH, data: "x" }]),
      "name-too-long",
      LONG_PATH,
    ),
    refuse(
      "tar.gz: a 200 x é name as a GNU long name",
      "tar.gz",
      tgz([{ name: "short", longName: E200, data: "x" }]),
      "name-too-long",
      E200,
    ),
    refuse(
      "zip: invalid UTF-8 in a name",
      "zip",
      zip([ok, { name: RAW_BAD_UTF8, data: "x" }]),
      "invalid-name-encoding",
      "f\ufffd.t",
    ),
    refuse(
      "tar.gz: invalid UTF-8 in a name",
      "tar.gz",
      tgz([ok, { name: RAW_BAD_UTF8, data: "x" }]),
      "invalid-name-encoding",
      "f\ufffd.t",
    ),
    refuse(
      "tar.gz: invalid UTF-8 in a pax path",
      "tar.gz",
      tgz([ok, { name: "x", pax: { path: RAW_BAD_UTF8 }, data: "x" }]),
      "invalid-name-encoding",
      "f\ufffd.t",
    ),
    refuse(
      "zip: NUL inside a name",
      "zip",
      zip([ok, { name: "a\0b.txt", data: "x" }]),
      "unsafe-path",
      "a\0b.txt",
    ),
    refuse(
      "tar.gz: NUL inside a pax path",
      "tar.gz",
      tgz([ok, { name: "x", pax: { path: "a\0b.txt" }, data: "x" }]),
      "unsafe-path",
      "a\0b.txt",
    ),

    // Bombs: 1 MiB of compressed zeros expanding to 1 GiB. The honest ones are refused by
    // their declared size; the streaming ones (a zip declaring 64 MiB, a tar of 64 MiB files)
    // pass every declared check and are stopped by the ratio while bytes are produced.
    refuse(
      "zip: a 1 GiB bomb declaring its size",
      "zip",
      () => buildZipBomb(),
      "too-large-expanded",
      "zeros.bin",
    ),
    refuse(
      "tar.gz: a 1 GiB bomb in one file",
      "tar.gz",
      () => buildTarGzBomb(),
      "too-large-expanded",
      "zeros.bin",
    ),
    refuse(
      "zip: a 1 GiB bomb declaring 64 MiB",
      "zip",
      () => buildZipBomb(STREAMING_BOMB.zip),
      "ratio-exceeded",
      "zeros.bin",
    ),
    refuse(
      "tar.gz: a 1 GiB bomb in 64 MiB files",
      "tar.gz",
      () => buildTarGzBomb(STREAMING_BOMB["tar.gz"]),
      "ratio-exceeded",
      "zeros.bin",
    ),

    // Links and special files.
    refuse(
      "zip: a symlink",
      "zip",
      zip([ok, { name: "link", data: "/etc/passwd", unixMode: 0o120777 }]),
      "link-entry",
      "link",
    ),
    refuse(
      "zip: a character device",
      "zip",
      zip([ok, { name: "dev", unixMode: 0o020644 }]),
      "special-entry",
      "dev",
    ),
    refuse(
      "zip: a FIFO",
      "zip",
      zip([ok, { name: "fifo", unixMode: 0o010644 }]),
      "special-entry",
      "fifo",
    ),
    refuse(
      "zip: a socket",
      "zip",
      zip([ok, { name: "sock", unixMode: 0o140644 }]),
      "special-entry",
      "sock",
    ),
    refuse(
      "tar.gz: a symlink",
      "tar.gz",
      tgz([ok, { name: "link", type: "2", linkname: "/etc/passwd" }]),
      "link-entry",
      "link",
    ),
    refuse(
      "tar.gz: a hard link",
      "tar.gz",
      tgz([ok, { name: "hard", type: "1", linkname: "ok.txt" }]),
      "link-entry",
      "hard",
    ),
    refuse(
      "tar.gz: a character device",
      "tar.gz",
      tgz([ok, { name: "dev", type: "3" }]),
      "special-entry",
      "dev",
    ),
    refuse(
      "tar.gz: a block device",
      "tar.gz",
      tgz([ok, { name: "blk", type: "4" }]),
      "special-entry",
      "blk",
    ),
    refuse(
      "tar.gz: a FIFO",
      "tar.gz",
      tgz([ok, { name: "fifo", type: "6" }]),
      "special-entry",
      "fifo",
    ),
    refuse(
      "tar.gz: a pax global header",
      "tar.gz",
      tgz([ok, { name: "global", type: "g", data: "9 a=b\n\n\n" }]),
      "unsupported-entry-type",
      "global",
    ),
    refuse(
      "tar.gz: a GNU long link name",
      "tar.gz",
      tgz([ok, { name: "././@LongLink", type: "K", data: "target\0" }]),
      "unsupported-entry-type",
      "././@LongLink",
    ),
    refuse(
      "tar.gz: an unknown type",
      "tar.gz",
      tgz([ok, { name: "odd", type: "Z" }]),
      "unsupported-entry-type",
      "odd",
    ),
    refuse(
      "tar.gz: a sparse file",
      "tar.gz",
      tgz([ok, { name: "sparse", pax: { "GNU.sparse.major": "1" }, data: "x" }]),
      "unsupported-entry-type",
    ),

    // Checksums and sizes.
    refuse(
      "zip: a bad CRC",
      "zip",
      zip([ok, { name: "bad.txt", data: "hello", crc: 0x12345678 }]),
      "checksum-mismatch",
      "bad.txt",
    ),
    refuse(
      "zip: a bad CRC on a stored entry",
      "zip",
      zip([ok, { name: "bad.txt", data: "hello", method: 0, crc: 1 }]),
      "checksum-mismatch",
      "bad.txt",
    ),
    refuse(
      "tar.gz: a bad header checksum",
      "tar.gz",
      tgz([ok, { name: "bad.txt", data: "x", badChecksum: true }]),
      "checksum-mismatch",
      "bad.txt",
    ),
    {
      name: "tar.gz: a bad gzip CRC",
      format: "tar.gz",
      refusal: { reason: "corrupt-archive" },
      build: () => {
        const b = buildTarGz([ok]);
        b[b.length - 8] = b[b.length - 8]! ^ 0xff;
        return b;
      },
    },
    refuse(
      "zip: a size smaller than the data",
      "zip",
      zip([ok, { name: "lie.txt", data: "hello world", size: 5 }]),
      "size-mismatch",
      "lie.txt",
    ),
    refuse(
      "zip: a size larger than the data",
      "zip",
      zip([ok, { name: "lie.txt", data: "hello", size: 50 }]),
      "size-mismatch",
      "lie.txt",
    ),
    refuse(
      "zip: a stored entry with differing sizes",
      "zip",
      zip([ok, { name: "lie.txt", data: "hello", method: 0, size: 4 }]),
      "size-mismatch",
      "lie.txt",
    ),
    refuse(
      "zip: a declared size over the expanded limit",
      "zip",
      zip([ok, { name: "huge.bin", data: "x", size: 2 ** 31 }]),
      "too-large-expanded",
      "huge.bin",
    ),
    refuse(
      "tar.gz: a size larger than the data",
      "tar.gz",
      tgz([ok, { name: "lie.txt", data: "hello", size: 4096 }], { endBlocks: 0 }),
      "truncated",
      "lie.txt",
    ),

    // Truncation and trailing data.
    refuse(
      "zip: truncated",
      "zip",
      () => buildZip([ok, { name: "b.txt", data: "x".repeat(1000) }]).subarray(0, 60),
      "truncated",
    ),
    refuse(
      "tar.gz: a truncated gzip stream",
      "tar.gz",
      () => {
        const b = buildTarGz([
          ok,
          {
            name: "b.bin",
            data: Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7919) % 251)),
          },
        ]);
        return b.subarray(0, Math.floor(b.length / 2));
      },
      "truncated",
      "b.bin",
    ),
    refuse("tar.gz: missing end blocks", "tar.gz", tgz([ok], { endBlocks: 0 }), "truncated"),
    refuse("tar.gz: one end block", "tar.gz", tgz([ok], { endBlocks: 1 }), "truncated"),
    refuse(
      "tar.gz: data after the end blocks",
      "tar.gz",
      tgz([ok], { trailing: Buffer.from("hidden.sh payload") }),
      "trailing-data",
    ),
    refuse(
      "zip: data after the end record",
      "zip",
      zip([ok], { trailing: Buffer.from("junk") }),
      "trailing-data",
    ),
    refuse(
      "tar.gz: a lone zero block between entries",
      "tar.gz",
      () =>
        gzipSync(
          Buffer.concat([
            buildTar([ok], { endBlocks: 1 }),
            buildTar([{ name: "b.txt", data: "x" }]),
          ]),
        ),
      "corrupt-archive",
      "b.txt",
    ),

    // Zip container structure.
    refuse(
      "zip: an encrypted entry",
      "zip",
      zip([ok, { name: "secret.txt", data: "x", flags: 0x801 }]),
      "encrypted-entry",
      "secret.txt",
    ),
    refuse(
      "zip: strong encryption",
      "zip",
      zip([ok, { name: "secret.txt", data: "x", flags: 0x840 }]),
      "encrypted-entry",
      "secret.txt",
    ),
    refuse("zip: a multi-disk archive", "zip", zip([ok], { disk: 1 }), "multi-disk"),
    refuse(
      "zip: zip64 with an absurd entry count",
      "zip",
      zip([ok], { zip64Count: 2n ** 40n }),
      "too-many-entries",
    ),
    refuse(
      "zip: an entry count over the limit",
      "zip",
      () => buildZip(Array.from({ length: 5001 }, (_, i) => ({ name: `f${i}`, method: 0 }))),
      "too-many-entries",
    ),
    refuse(
      "tar.gz: an entry count over the limit",
      "tar.gz",
      () => buildTarGz(Array.from({ length: 5001 }, (_, i) => ({ name: `f${i}` }))),
      "too-many-entries",
      "f5000",
    ),
    refuse(
      "zip: an unknown method (bzip2)",
      "zip",
      zip([ok, { name: "b.txt", data: "x", method: 12 }]),
      "unsupported-method",
      "b.txt",
    ),
    refuse(
      "zip: central and local names differ",
      "zip",
      zip([ok, { name: "a.txt", data: "x", local: { name: "b.txt" } }]),
      "header-mismatch",
      "a.txt",
    ),
    refuse(
      "zip: central and local methods differ",
      "zip",
      zip([ok, { name: "a.txt", data: "x", local: { method: 0 } }]),
      "header-mismatch",
      "a.txt",
    ),
    refuse(
      "zip: central and local flags differ",
      "zip",
      zip([ok, { name: "a.txt", data: "x", local: { flags: 0 } }]),
      "header-mismatch",
      "a.txt",
    ),
    refuse(
      "zip: central and local sizes differ",
      "zip",
      zip([ok, { name: "a.txt", data: "x", local: { size: 99 } }]),
      "header-mismatch",
      "a.txt",
    ),
    refuse(
      "zip: central and local CRCs differ",
      "zip",
      zip([ok, { name: "a.txt", data: "x", local: { crc: 7 } }]),
      "header-mismatch",
      "a.txt",
    ),
    refuse(
      "zip: an entry inside another entry",
      "zip",
      () => {
        const inner: ZipSpec = { name: "b.txt", data: "inner" };
        const outerName = "a.bin";
        return buildZip([
          { name: outerName, data: buildZipLocal(inner), method: 0 },
          { ...inner, centralOnly: { offset: 30 + outerName.length } },
        ]);
      },
      "overlapping-entries",
      "b.txt",
    ),
    refuse(
      "zip: two records for one local header",
      "zip",
      () => buildZip([ok, { ...ok, centralOnly: { offset: 0 } }]),
      "duplicate-entry",
      "ok.txt",
    ),
    refuse(
      "zip: an entry running into the central directory",
      "zip",
      zip([ok, { name: "b.txt", data: "x", method: 0, compressedSize: 40, size: 40 }]),
      "overlapping-entries",
      "b.txt",
    ),
    refuse(
      "zip: hidden bytes between entries",
      "zip",
      zip([
        ok,
        {
          name: "b.txt",
          data: "x",
          gapBefore: buildZipLocal({ name: "hidden.sh", data: "rm -rf /" }),
        },
      ]),
      "corrupt-archive",
      "b.txt",
    ),
    {
      name: "other: plain text",
      format: "other",
      build: () => Buffer.from("just text"),
      refusal: { reason: "unknown-format" },
    },
    {
      name: "zip: over the archive size limit",
      format: "zip",
      build: () => Buffer.concat([buildZip([ok]), Buffer.alloc(20 * 1024 * 1024)]),
      refusal: { reason: "archive-too-large" },
    },
  );
  return cases;
}

/** Legitimate archives and their exact summaries. */
export function buildLegitCorpus(): CorpusCase[] {
  return [
    {
      name: "zip: files, folders, a stored entry, an empty file, a data descriptor",
      format: "zip",
      build: zip([
        { name: "src/" },
        { name: "src/index.mjs", data: "export {}\n" },
        { name: "bin/run.sh", data: "#!/bin/sh\n", unixMode: 0o100755 },
        { name: "data.txt", data: "stored\n", method: 0 },
        { name: "empty.txt" },
        { name: "notes/é.md", data: "# é\n", descriptor: true },
      ]),
      summary: {
        format: "zip",
        files: [
          { path: "src/index.mjs", bytes: 10 },
          { path: "bin/run.sh", bytes: 10 },
          { path: "data.txt", bytes: 7 },
          { path: "empty.txt", bytes: 0 },
          { path: "notes/é.md", bytes: 5 },
        ],
        dirs: 1,
        expandedBytes: 32,
      },
    },
    {
      name: "tar.gz: root entry, ustar prefix, pax path, GNU long name, record padding",
      format: "tar.gz",
      build: tgz(
        [
          { name: "./", type: "5" },
          { name: "./src/", type: "5" },
          { name: "./src/index.mjs", data: "export {}\n" },
          { name: "run.sh", data: "#!/bin/sh\n", mode: 0o755 },
          { name: "c.txt", prefix: "deep/b", data: "prefixed\n" },
          {
            name: "PaxName",
            pax: { path: `long/${"p".repeat(150)}.txt`, mtime: "1.5" },
            data: "pax\n",
          },
          { name: "short", longName: `gnu/${"g".repeat(120)}.txt`, data: "gnu\n" },
          { name: "empty.txt" },
        ],
        { endBlocks: 18 },
      ),
      summary: {
        format: "tar.gz",
        files: [
          { path: "src/index.mjs", bytes: 10 },
          { path: "run.sh", bytes: 10 },
          { path: "deep/b/c.txt", bytes: 9 },
          { path: `long/${"p".repeat(150)}.txt`, bytes: 4 },
          { path: `gnu/${"g".repeat(120)}.txt`, bytes: 4 },
          { path: "empty.txt", bytes: 0 },
        ],
        dirs: 1,
        expandedBytes: 37,
      },
    },
  ];
}
