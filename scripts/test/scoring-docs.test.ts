/**
 * docs/scoring.md restates the engine's tables a reader needs (the integrity triggers and their
 * points, the exploit deductions, the provenances and the trust caps): each restated table must
 * be the engine's, row for row, so a trigger added to the code without its line in the docs (or
 * the other way round) fails here.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  EXPLOIT_POINTS,
  INTEGRITY_POINTS,
  PROVENANCES,
  TRUST_BASIS_MAX,
  TRUST_CAPS,
} from "@bouts/scoring";
import { describe, expect, it } from "vitest";
import { ROOT } from "../lib/local-platform.ts";

const SCORING_MD = readFileSync(path.join(ROOT, "docs/scoring.md"), "utf8");

/** The body rows of the first table under `heading`, as trimmed cells. */
function tableUnder(heading: string, nth = 0): string[][] {
  const start = SCORING_MD.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading ${heading}`);
  const lines = SCORING_MD.slice(start).split("\n");
  const tables: string[][][] = [];
  let current: string[][] | null = null;
  for (const line of lines.slice(2)) {
    if (/^#{1,3} /.test(line)) break;
    if (line.startsWith("|")) {
      current ??= [];
      current.push(
        line
          .split("|")
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    } else if (current) {
      tables.push(current);
      current = null;
    }
  }
  const table = tables[nth];
  if (!table) throw new Error(`no table ${nth} under ${heading}`);
  return table.slice(2); // header and separator
}

/** "−10" / "+5" / "0" as a number. */
const points = (cell: string): number => Number(cell.replace("−", "-").replace("+", ""));
/** The trigger of a row: its first word, before any explanation in parentheses. */
const trigger = (cell: string): string => cell.split(" ")[0]!;

describe("docs/scoring.md restates the engine's tables", () => {
  it("lists every integrity trigger with its points, in the engine's order", () => {
    const rows = tableUnder("### Integrity (bounded +10 / −25)");
    expect(rows.map(([t, p]) => [trigger(t!), points(p!)])).toEqual(
      Object.entries(INTEGRITY_POINTS),
    );
  });

  it("lists every exploit trigger with its deduction", () => {
    const rows = tableUnder("### Exploit penalties (separate deductions)");
    expect(rows.map(([t, p]) => [trigger(t!), points(p!)])).toEqual(Object.entries(EXPLOIT_POINTS));
  });

  it("lists the provenances and the trust caps, and the basis bound", () => {
    const kinds = tableUnder("### Provenance and trust caps", 0).map(([k]) => k!.replace(/`/g, ""));
    expect([...kinds].sort()).toEqual([...PROVENANCES].sort());
    const caps = tableUnder("### Provenance and trust caps", 1).map(([, cap]) => cap);
    expect(caps).toEqual([String(TRUST_CAPS.contradicted), String(TRUST_CAPS.unchecked), "none"]);
    expect(SCORING_MD).toContain(`over ${TRUST_BASIS_MAX} characters`);
  });
});
