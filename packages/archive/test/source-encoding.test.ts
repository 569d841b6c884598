/**
 * The `source-encoding` admission rule: a file an interpreter may load as source must be what
 * the scanners read, UTF-8. Hostile cases (a utf-7 coding declaration hiding `eval` in a
 * comment, UTF-16 byte order marks, latin-1, invalid bytes) are refused through the streamed
 * admission ingest uses; honest unusual source (a utf-8 declaration, a UTF-8 byte order mark,
 * non-ASCII text) is admitted. The UTF-8 state machine is checked against the platform decoder.
 */
import { describe, expect, it } from "vitest";
import {
  checkAdmission,
  checkSourceEncoding,
  createAdmissionSink,
  DEFAULT_ARCHIVE_LIMITS,
  readArchive,
  Utf8Validator,
} from "../src/index.ts";
import { buildTarGz, buildZip } from "@bouts/fixtures";

const enc = new TextEncoder();

/** The utf-7 decoy: a comment to a UTF-8 reader, `eval` and a key to Python's utf-7 codec. */
const UTF7_DECOY = enc.encode(
  "# -*- coding: utf-7 -*-\n" +
    "def add(a, b):\n" +
    "    return a + b  # +AAo-    eval(a) +ACM-\n" +
    "# +AAo-API+AF8-KEY = +ACI-sk+AF8-live+AF8-0123456789abcdefghijkl+ACI-\n",
);

function utf16le(text: string, bom = true): Uint8Array {
  const out = new Uint8Array((bom ? 2 : 0) + text.length * 2);
  if (bom) out.set([0xff, 0xfe]);
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    out[(bom ? 2 : 0) + 2 * i] = c & 0xff;
    out[(bom ? 2 : 0) + 2 * i + 1] = c >> 8;
  }
  return out;
}

/** Runs an archive of `files` through readArchive and checkAdmission, as ingest does. */
async function admit(files: Record<string, string | Uint8Array>, module: string, zip = false) {
  const specs = Object.entries(files).map(([name, data]) => ({ name, data }));
  const bytes = zip ? buildZip(specs) : buildTarGz(specs);
  const admission = createAdmissionSink();
  const read = await readArchive(bytes, DEFAULT_ARCHIVE_LIMITS, admission.sink);
  if (!read.ok) throw new Error(JSON.stringify(read.error));
  return checkAdmission(
    {
      files: read.value.files.map((f) => f.path),
      samples: admission.samples,
      dirs: admission.dirs,
    },
    { module },
  );
}

describe("source-encoding: refused", () => {
  it.each([false, true])("a utf-7 coding declaration in Python (zip: %s)", async (zip) => {
    const r = await admit({ "solution.py": UTF7_DECOY }, "solution.py", zip);
    expect(r).toMatchObject({
      ok: false,
      error: { reason: "source-encoding", entry: "solution.py" },
    });
    expect(!r.ok && r.error.detail).toContain('"utf-7"');
  });

  it.each([
    ["# coding=latin-1\n", "latin-1"],
    ["#!/usr/bin/env python3\n# vim: set fileencoding=UTF-7 :\n", "UTF-7"],
    ["\t\f# coding: utf_16\n", "utf_16"],
    ["# coding: rot13\n", "rot13"],
    ["\xef\xbb\xbf# coding: cp1252\n", "cp1252"],
    ["#\r# coding:\tutf-7\r", "utf-7"],
  ])("the declaration in %j", (prefix, codec) => {
    const head = Uint8Array.from(prefix + "x = 1\n", (c) => c.charCodeAt(0));
    const why = checkSourceEncoding("m.py", { head, size: head.length, firstInvalidUtf8: -1 });
    expect(why).toContain(JSON.stringify(codec));
  });

  it("a coding declaration in a #! python script with no extension", () => {
    const head = enc.encode("#!/usr/bin/python3\n# coding: utf-7\nprint(1)\n");
    expect(
      checkSourceEncoding("bin/run", { head, size: head.length, firstInvalidUtf8: -1 }),
    ).toContain("utf-7");
  });

  it("a comment line too long for the declaration check to see whole", () => {
    const head = enc.encode(`#${" ".repeat(4000)}coding: utf-7\n`).subarray(0, 4096);
    expect(checkSourceEncoding("m.py", { head, size: 10_000, firstInvalidUtf8: -1 })).toContain(
      "cannot be checked",
    );
  });

  it.each([
    ["solution.mjs", utf16le("export const add = (a, b) => a + b;\n"), "UTF-16 (little-endian)"],
    ["solution.mjs", Uint8Array.of(0xfe, 0xff, 0, 0x78), "UTF-16 (big-endian)"],
    ["lib/data.json", Uint8Array.of(0xff, 0xfe, 0, 0, 0x7b, 0, 0, 0), "UTF-32 (little-endian)"],
    ["solution.py", Uint8Array.of(0, 0, 0xfe, 0xff, 0, 0, 0, 0x78), "UTF-32 (big-endian)"],
  ])("%s with a %s byte order mark", async (name, data, bom) => {
    const files: Record<string, string | Uint8Array> = { [name]: data };
    const module = name.startsWith("lib/") ? "solution.mjs" : name;
    if (module !== name) files[module] = "export {};\n";
    const r = await admit(files, module);
    expect(r).toMatchObject({ ok: false, error: { reason: "source-encoding", entry: name } });
    expect(!r.ok && r.error.detail).toContain(bom);
  });

  it("bytes that are not UTF-8 anywhere in a source file, even past the sampled head and tail", async () => {
    const big = new Uint8Array(300_000).fill(0x20);
    big.set(enc.encode("export const add = (a, b) => a + b; // "), 0);
    big[150_000] = 0xe9; // latin-1 "é" alone: not UTF-8
    big[big.length - 1] = 0x0a;
    const r = await admit({ "solution.mjs": big }, "solution.mjs", true);
    expect(r).toMatchObject({
      ok: false,
      error: { reason: "source-encoding", entry: "solution.mjs" },
    });
    expect(!r.ok && r.error.detail).toContain("offset 150000");
  });

  it("a UTF-8 sequence cut short at the end of the file", async () => {
    const r = await admit(
      { "solution.py": Uint8Array.of(0x78, 0x3d, 0x31, 0xe2, 0x82) },
      "solution.py",
    );
    expect(r).toMatchObject({ ok: false, error: { reason: "source-encoding" } });
  });
});

describe("source-encoding: honest source is admitted", () => {
  it.each([
    ["solution.py", "# -*- coding: utf-8 -*-\ndef add(a, b):\n    return a + b\n"],
    ["solution.py", "#!/usr/bin/env python3\n# vim: set fileencoding=UTF8 :\nx = 1\n"],
    ["solution.py", "# coding: ascii\nx = 1\n"],
    ["solution.py", "# coding=utf-8-sig\nx = 1\n"],
    ["solution.py", "\ufeffdef add(a, b):\n    return a + b\n"],
    ["solution.py", 'def añadir(a, b):\n    """Suma — ünïcödé, 数字, 🙂"""\n    return a + b\n'],
    ["solution.mjs", "\ufeffexport const add = (a, b) => a + b; // 🙂\n"],
    ["solution.mjs", "export const grüße = 'привет';\nexport const add = (a, b) => a + b;\n"],
    ["solution.py", "x = 1  # the decoding: latin-1 discussion is on line 1, not a comment line\n"],
  ])("%s: %j", async (name, text) => {
    expect(await admit({ [name]: text }, name)).toMatchObject({ ok: true });
  });

  it("data files in other encodings, which no interpreter loads as source", async () => {
    const r = await admit(
      {
        "solution.mjs": "export const add = (a, b) => a + b;\n",
        "docs/notes-latin1.txt": Uint8Array.of(0x63, 0x61, 0x66, 0xe9),
        "docs/logo.png": Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff),
        "docs/utf16.csv": utf16le("a,b\n"),
      },
      "solution.mjs",
    );
    expect(r).toMatchObject({ ok: true });
  });
});

describe("Utf8Validator agrees with the platform's fatal decoder", () => {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const valid = (b: Uint8Array) => {
    try {
      decoder.decode(b);
      return true;
    } catch {
      return false;
    }
  };

  it("on every sequence of up to three bytes built from boundary values", () => {
    const edges = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf];
    edges.push(0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff);
    for (const a of edges)
      for (const b of edges)
        for (const c of edges)
          for (const d of [0x80, 0xbf, 0x41]) {
            const bytes = Uint8Array.of(a, b, c, d);
            const v = new Utf8Validator();
            // Fed in two pieces, so a sequence crossing chunks is checked too.
            v.push(bytes.subarray(0, 2));
            v.push(bytes.subarray(2));
            expect(v.result() < 0, Array.from(bytes, (x) => x.toString(16)).join(" ")).toBe(
              valid(bytes),
            );
          }
  });
});
