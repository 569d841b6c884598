/**
 * The tar writer: what it writes, the validator reads back exactly (short and long names,
 * empty files); it checks nothing itself, so a hostile name is refused by the validator, the
 * one set of rules, and not let through by the writer.
 */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { DEFAULT_ARCHIVE_LIMITS, packTar, readArchive } from "../src/index.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const gz = (b: Uint8Array) => new Uint8Array(gzipSync(b));

describe("packTar", () => {
  it("round-trips short names, a 130-byte name (GNU L) and an empty file", async () => {
    const long = `src/${"a".repeat(60)}/${"b".repeat(60)}.mjs`;
    expect(enc(long).length).toBeGreaterThan(100);
    const files = [
      { path: "app.mjs", data: enc("export const a = 1;\n") },
      { path: long, data: enc("x") },
      { path: "NOTES.md", data: new Uint8Array(0) },
    ];
    const r = await readArchive(gz(packTar(files)), DEFAULT_ARCHIVE_LIMITS);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.files).toEqual([
      { path: "app.mjs", bytes: 20 },
      { path: long, bytes: 1 },
      { path: "NOTES.md", bytes: 0 },
    ]);
  });

  it("is deterministic", () => {
    const files = [{ path: "a", data: enc("1") }];
    expect(packTar(files)).toEqual(packTar(files));
    expect(packTar(files).length).toBe(512 * 4);
  });

  it("writes hostile names as given, and the validator refuses them", async () => {
    for (const path of ["../escape.mjs", "/etc/passwd", "a/./b"]) {
      const r = await readArchive(gz(packTar([{ path, data: enc("x") }])), DEFAULT_ARCHIVE_LIMITS);
      expect(r.ok, path).toBe(false);
    }
  });
});
