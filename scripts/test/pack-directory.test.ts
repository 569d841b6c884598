/**
 * `packDirectory` (scripts/lib/local-platform.ts) packs reproducibly: the QA cache is keyed by the
 * bundle's sha256, so an unchanged folder must give the same bytes on every `npm start`.
 */
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { packDirectory, ROOT } from "../lib/local-platform.ts";

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
