/**
 * Packing a folder (challenge/bundle.ts): the same files give the same bytes whatever their
 * mtimes or the order the file system lists them in, because a bundle's sha256 seeds its
 * generated-test draw (`npm run challenge` and the runner's tests must draw the same tests in
 * every checkout); links stay links. Pure file-system work, nothing runs.
 */
import { gunzipSync } from "node:zlib";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { computeSha256, packChallengeDir, packDir } from "../src/challenge/bundle.ts";
import { CHALLENGES } from "./helpers.ts";

/** The names and types of a tar stream's entries, in order (ustar headers, 512-byte blocks). */
function tarEntries(gz: Buffer): { name: string; type: string; mtime: number }[] {
  const tar = gunzipSync(gz);
  const out: { name: string; type: string; mtime: number }[] = [];
  for (let at = 0; at + 512 <= tar.length;) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const field = (o: number, n: number) =>
      h
        .subarray(o, o + n)
        .toString("latin1")
        .split("\0")[0]!;
    const prefix = field(345, 155);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = parseInt(field(124, 12).trim() || "0", 8);
    out.push({ name, type: field(156, 1), mtime: parseInt(field(136, 12).trim() || "0", 8) });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

/** Writes the same tree twice: files created in opposite orders, with other mtimes. */
function twoCopies(): [string, string] {
  const files: [string, string][] = [
    ["challenge.json", '{"id":"x"}'],
    ["tests/b.test.mjs", "b"],
    ["tests/a.test.mjs", "a"],
    ["tests/deep/z.mjs", "z"],
    ["reference/index.mjs", "export {}"],
  ];
  const dirs = [0, 1].map(() => mkdtempSync(path.join(tmpdir(), "bouts-pack-")));
  for (const [i, dir] of dirs.entries()) {
    for (const [rel, text] of i === 0 ? files : [...files].reverse()) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
      const t = new Date(Date.UTC(2026, i * 5, 1 + i * 7));
      utimesSync(path.join(dir, rel), t, t);
    }
  }
  return [dirs[0]!, dirs[1]!];
}

describe("packing a folder", () => {
  it("gives the same bytes for the same files, whatever their mtimes and creation order", async () => {
    const [a, b] = twoCopies();
    expect(computeSha256(await packChallengeDir(a))).toBe(computeSha256(await packChallengeDir(b)));
    expect(computeSha256(await packDir(a))).toBe(computeSha256(await packDir(b)));
  });

  it("lists entries sorted, folders first, with every mtime 0", async () => {
    const [a] = twoCopies();
    const entries = tarEntries(await packChallengeDir(a));
    expect(entries.map((e) => e.name)).toEqual([
      "challenge.json",
      "reference/",
      "reference/index.mjs",
      "tests/",
      "tests/a.test.mjs",
      "tests/b.test.mjs",
      "tests/deep/",
      "tests/deep/z.mjs",
    ]);
    expect(entries.every((e) => e.mtime === 0)).toBe(true);
  });

  it("gives another sha256 when one byte of one file changes", async () => {
    const [a, b] = twoCopies();
    writeFileSync(path.join(b, "tests/deep/z.mjs"), "Z");
    expect(computeSha256(await packChallengeDir(a))).not.toBe(
      computeSha256(await packChallengeDir(b)),
    );
  });

  it("keeps a symbolic link as a link, not the file it names", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "bouts-pack-link-"));
    writeFileSync(path.join(dir, "index.mjs"), "export {}");
    symlinkSync("/etc/passwd", path.join(dir, "escape"));
    const entries = tarEntries(await packDir(dir));
    expect(entries.find((e) => e.name === "escape")?.type).toBe("2");
  });

  it("packs an example challenge the same from two copies", async () => {
    const copy = mkdtempSync(path.join(tmpdir(), "bouts-pack-deep-merge-"));
    cpSync(path.join(CHALLENGES, "deep-merge"), copy, { recursive: true });
    for (const name of readdirSync(copy, { recursive: true }) as string[]) {
      const t = new Date(Date.UTC(2030, 0, 1));
      utimesSync(path.join(copy, name), t, t);
    }
    expect(computeSha256(await packChallengeDir(copy))).toBe(
      computeSha256(await packChallengeDir(path.join(CHALLENGES, "deep-merge"))),
    );
  });
});
