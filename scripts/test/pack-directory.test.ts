/**
 * `packDirectory` (@bouts/fixtures; scripts/lib/local-platform.ts passes it on) packs
 * reproducibly: a bundle's sha256 keys the QA cache and seeds the generated-test draw, so an
 * unchanged folder must give the same bytes on every `npm start` and in every checkout, and the
 * test projects that serve example bundles must pack them this way too.
 */
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { packDirectory, ROOT } from "../lib/local-platform.ts";
import { vitestConfigFiles } from "../lib/vitest-projects.ts";

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

it("packs an unchanged folder to the same bytes, whatever its mtimes, and a changed one to others", () => {
  const source = path.join(ROOT, "challenges", "deep-merge");
  const copy = mkdtempSync(path.join(tmpdir(), "bouts-pack-"));
  cpSync(source, copy, { recursive: true });
  utimesSync(path.join(copy, "challenge.json"), new Date(0), new Date(86_400_000));
  const a = sha(packDirectory(source, ["submissions"]));
  expect(sha(packDirectory(source, ["submissions"]))).toBe(a);
  expect(sha(packDirectory(copy, ["submissions"]))).toBe(a);
  writeFileSync(path.join(copy, "README.md"), "changed\n");
  expect(sha(packDirectory(copy, ["submissions"]))).not.toBe(a);
});

it("is how every test project packs the example folders it serves, never a tar that keeps mtimes", () => {
  // A plain `tar -czf` stored each checkout's mtimes: the score project's notes-api bundle had
  // another sha256 in every clone, so another generated-test draw (1.4 s or 12.6 s a run).
  const configs = vitestConfigFiles();
  expect(configs.length).toBeGreaterThanOrEqual(8);
  for (const file of configs) {
    const text = readFileSync(path.join(ROOT, file), "utf8");
    expect(text, file).not.toMatch(/\b(spawn|spawnSync|execFileSync|execSync)\(\s*"tar"/);
  }
  for (const file of ["workers/score/vitest.config.ts", "workers/ingest/vitest.config.ts"])
    expect(readFileSync(path.join(ROOT, file), "utf8"), file).toMatch(/\bpackDirectory\(/);
});
