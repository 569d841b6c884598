/**
 * @module judges/analysis/duplication
 * Duplicated code across all files: every window of 5 consecutive normalized code lines (with
 * at least 3 distinct lines) is indexed; a window seen twice or more is a duplicate block, so
 * renamed identifiers still match. Pure.
 */
import type { Finding } from "./findings.ts";
import type { NormalizedLine } from "./lines.ts";

const WINDOW = 5;

/** Where one window occurs: its file, first line and every line it covers. */
interface WindowAt {
  file: string;
  line: number;
  lines: number[];
}

/** Windows of normalized lines by their text, across the files indexed so far. */
export type WindowIndex = Map<string, WindowAt[]>;

/** Adds one file's windows to the index. */
export function indexWindows(index: WindowIndex, file: string, norm: NormalizedLine[]): void {
  for (let i = 0; i + WINDOW <= norm.length; i++) {
    const slice = norm.slice(i, i + WINDOW);
    if (new Set(slice.map((s) => s.key)).size < 3) continue;
    const key = slice.map((s) => s.key).join("\n");
    const list = index.get(key) ?? [];
    list.push({ file, line: slice[0]!.line, lines: slice.map((s) => s.line) });
    index.set(key, list);
  }
}

/** One finding per repeated window, and how many distinct lines lie in a repeated one. */
export function findDuplicates(index: WindowIndex): { findings: Finding[]; lines: number } {
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const list of index.values()) {
    if (list.length < 2) continue;
    for (const w of list) for (const l of w.lines) seen.add(`${w.file}:${l}`);
    findings.push({
      rule: "duplicate-block",
      file: list[1]!.file,
      line: list[1]!.line,
      detail: `repeats ${list[0]!.file}:${list[0]!.line}`,
    });
  }
  return { findings, lines: seen.size };
}
