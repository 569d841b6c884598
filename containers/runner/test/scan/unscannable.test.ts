/**
 * The refusal list: files a runtime can load but no scanner or judge can read, recognised by
 * name and by content, with fixtures generated here (a real .pyc from python3.11 -m py_compile,
 * ELF magic in a .txt, WebAssembly, a native addon, PE and Mach-O headers, zip applications).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  findUnscannableCode,
  looksLikeZip,
  unscannableByContent,
  unscannableByName,
} from "../../src/scan/unscannable.ts";

const run = promisify(execFile);
const PYTHON = process.env.RUNNER_TEST_PYTHON ?? "python3.11";

/** A minimal PE file: DOS header whose e_lfanew points at "PE\0\0". */
function peFile(signatureAt: number): Buffer {
  const b = Buffer.alloc(signatureAt + 64);
  b.write("MZ", 0, "latin1");
  b.writeUInt32LE(signatureAt, 0x3c);
  b.write("PE\0\0", signatureAt, "latin1");
  return b;
}

/** A zip archive holding __main__.py, made by Python's zipfile. */
async function zipWithMain(out: string): Promise<void> {
  await run(PYTHON, [
    "-c",
    "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z: z.writestr('__main__.py', 'print(1)')",
    out,
  ]);
}

describe("findUnscannableCode", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "bouts-unscannable-"));
    await mkdir(path.join(dir, "pkg"), { recursive: true });
    await mkdir(path.join(dir, "zipapp"), { recursive: true });
    // A real .pyc: py_compile writes pkg/__pycache__/mod.cpython-311.pyc.
    await writeFile(path.join(dir, "pkg/mod.py"), "SECRET = 'x'\n");
    await run(PYTHON, ["-m", "py_compile", path.join(dir, "pkg/mod.py")]);
    const pyc = await readFile(path.join(dir, "pkg/__pycache__/mod.cpython-311.pyc"));
    // The same bytecode next to its package (importable without a source) and under a data name.
    await writeFile(path.join(dir, "pkg/helper.pyc"), pyc);
    await writeFile(path.join(dir, "notes.dat"), pyc);
    await writeFile(path.join(dir, "data.txt"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]));
    await writeFile(
      path.join(dir, "calc.wasm"),
      Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]),
    );
    await writeFile(path.join(dir, "bindings.node"), "not looked at: the name is enough");
    await writeFile(path.join(dir, "libhidden.so.1"), "x");
    await writeFile(path.join(dir, "helper.bin"), peFile(0x80));
    await writeFile(path.join(dir, "far.bin"), peFile(0x2000));
    await writeFile(path.join(dir, "tool.img"), Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1]));
    // Zip applications: a zip named as Python source, text with a zip appended, and zipapp's
    // own output (a #! line naming Python, then the archive).
    await zipWithMain(path.join(dir, "main.py"));
    await zipWithMain(path.join(dir, "inner.zip"));
    await writeFile(
      path.join(dir, "app.py"),
      Buffer.concat([Buffer.from("print('hello')\n"), await readFile(path.join(dir, "inner.zip"))]),
    );
    await writeFile(path.join(dir, "zipapp/__main__.py"), "print(1)\n");
    await run(PYTHON, [
      "-m",
      "zipapp",
      path.join(dir, "zipapp"),
      "-p",
      "/usr/bin/env python3",
      "-o",
      path.join(dir, "runme"),
    ]);
    await symlink("/usr/lib/libc.so.6", path.join(dir, "libc.so"));
    // Not code, or code the scanner reads: never listed.
    await writeFile(path.join(dir, "index.js"), "module.exports = 1;\n");
    await writeFile(path.join(dir, "ok.txt"), "ok\r\nclean text, CRLF, c at 8 and 12\r\n");
    await writeFile(path.join(dir, "mz.txt"), "MZ is a postcode area".padEnd(80, "."));
    await writeFile(path.join(dir, "data.json"), '{"a": 1}\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("lists every compiled, native, WebAssembly and zip-application file, by name or content", async () => {
    const found = await findUnscannableCode(dir);
    expect(found.map((f) => f.file)).toEqual([
      "app.py",
      "bindings.node",
      "calc.wasm",
      "data.txt",
      "far.bin",
      "helper.bin",
      "libc.so",
      "libhidden.so.1",
      "main.py",
      "notes.dat",
      "pkg/__pycache__/mod.cpython-311.pyc",
      "pkg/helper.pyc",
      "runme",
      "tool.img",
    ]);
    const reason = (file: string) => found.find((f) => f.file === file)!.reason;
    expect(reason("data.txt")).toMatch(/ELF .*by its content/);
    expect(reason("notes.dat")).toBe("compiled Python bytecode (by its content)");
    expect(reason("pkg/helper.pyc")).toMatch(/compiled Python bytecode \(\.pyc\)/);
    expect(reason("pkg/__pycache__/mod.cpython-311.pyc")).toMatch(/__pycache__/);
    expect(reason("calc.wasm")).toMatch(/WebAssembly/);
    expect(reason("bindings.node")).toMatch(/native Node\.js addon/);
    expect(reason("helper.bin")).toMatch(/PE executable/);
    expect(reason("far.bin")).toMatch(/PE executable/);
    expect(reason("tool.img")).toMatch(/Mach-O/);
    expect(reason("main.py")).toMatch(/zip archive named as Python source/);
    expect(reason("app.py")).toMatch(/zip archive named as Python source/);
    expect(reason("runme")).toMatch(/Python zip application/);
  });

  it("finds nothing in a folder of source and data", async () => {
    const clean = await mkdtemp(path.join(tmpdir(), "bouts-unscannable-clean-"));
    try {
      await mkdir(path.join(clean, "src"));
      await writeFile(path.join(clean, "src/app.ts"), "export const a = 1;\n");
      await writeFile(path.join(clean, "main.py"), "print('hi')\n");
      await writeFile(path.join(clean, "README.md"), "# hi\n");
      expect(await findUnscannableCode(clean)).toEqual([]);
    } finally {
      await rm(clean, { recursive: true, force: true });
    }
  });
});

describe("recognisers", () => {
  it("name: compiled Python, native libraries, WebAssembly, Python archives", () => {
    for (const name of [
      "a.pyc",
      "a.PYO",
      "a.pyd",
      "a.so",
      "lib/a.so.6.0.1",
      "a.dylib",
      "a.dll",
      "a.node",
      "a.wasm",
      "a.pyz",
      "a.whl",
      "a.egg",
      "pkg/__pycache__/notes.txt",
    ]) {
      expect(unscannableByName(name), name).not.toBeNull();
    }
    for (const name of ["a.py", "a.js", "a.sol", "a.so.txt", "__pycache__.md", "node.md"]) {
      expect(unscannableByName(name), name).toBeNull();
    }
  });

  it("content: magic numbers, and no false alarm on text that starts alike", () => {
    const bytes = (...b: number[]) => new Uint8Array(b);
    expect(unscannableByContent(bytes(0x7f, 0x45, 0x4c, 0x46))).toMatch(/ELF/);
    expect(unscannableByContent(bytes(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0))).toMatch(/WebAssembly/);
    expect(unscannableByContent(bytes(0xfe, 0xed, 0xfa, 0xcf))).toMatch(/Mach-O/);
    expect(unscannableByContent(bytes(0xca, 0xfe, 0xba, 0xbe))).toMatch(/Mach-O|Java/);
    // 3.11 header (magic 3495, flags, 8 bytes) then a code object with the ref flag.
    const pyc = Buffer.alloc(32);
    pyc.writeUInt16LE(3495, 0);
    pyc.write("\r\n", 2, "latin1");
    pyc[16] = 0xe3;
    expect(unscannableByContent(pyc)).toMatch(/Python bytecode/);
    // Two characters and CRLF, with 'c' where a code object would be: text, not bytecode.
    expect(unscannableByContent(Buffer.from("ok\r\nabcdcabccabcdc"))).toBeNull();
    expect(unscannableByContent(Buffer.from("MZ".padEnd(100, " ")))).toBeNull();
    expect(unscannableByContent(Buffer.from("#!/usr/bin/env node\n"))).toBeNull();
  });

  it("zip: a local header at the start or an end record near the end", () => {
    const end = Buffer.from([0x50, 0x4b, 0x05, 0x06, 0, 0]);
    expect(looksLikeZip(Buffer.from("PK\x03\x04", "latin1"), Buffer.alloc(0))).toBe(true);
    expect(looksLikeZip(Buffer.from("print(1)"), Buffer.concat([Buffer.from("x"), end]))).toBe(
      true,
    );
    expect(looksLikeZip(Buffer.from("PK is text"), Buffer.from("PK is text"))).toBe(false);
  });
});
