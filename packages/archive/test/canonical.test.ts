/**
 * The canonical hash of a submission's files (docs/design.md §31): "the code" is its files,
 * however they were packed. Invariant: pure inputs, no archive needed.
 */
import { describe, expect, it } from "vitest";
import { canonicalFilesSha256 } from "../src/index.ts";

const PARTIAL = "export function deepMerge(...sources) { return Object.assign({}, ...sources); }";

describe("the canonical files hash", () => {
  const enc = (s: string) => new TextEncoder().encode(s);

  it("is the same for the same files in any order", async () => {
    const a = await canonicalFilesSha256([
      { path: "merge.mjs", bytes: enc(PARTIAL) },
      { path: "NOTES.md", bytes: enc("notes") },
      { path: "lib/x.mjs", bytes: enc("x") },
    ]);
    const b = await canonicalFilesSha256([
      { path: "lib/x.mjs", bytes: enc("x") },
      { path: "merge.mjs", bytes: enc(PARTIAL) },
      { path: "NOTES.md", bytes: enc("notes") },
    ]);
    expect(a.ok && b.ok && a.value === b.value).toBe(true);
  });

  it("changes with a path or a byte, and refuses duplicates and bad paths", async () => {
    const base = await canonicalFilesSha256([{ path: "merge.mjs", bytes: enc("x") }]);
    const renamed = await canonicalFilesSha256([{ path: "merge2.mjs", bytes: enc("x") }]);
    const edited = await canonicalFilesSha256([{ path: "merge.mjs", bytes: enc("y") }]);
    expect(base.ok && renamed.ok && edited.ok).toBe(true);
    if (!base.ok || !renamed.ok || !edited.ok) return;
    expect(new Set([base.value, renamed.value, edited.value]).size).toBe(3);
    const dup = await canonicalFilesSha256([
      { path: "a", bytes: enc("1") },
      { path: "a", bytes: enc("2") },
    ]);
    expect(dup).toMatchObject({ ok: false, error: { reason: "duplicate-path" } });
    for (const p of ["../a", "/a", "a//b", "a\nb", "./a"])
      expect(await canonicalFilesSha256([{ path: p, bytes: enc("1") }])).toMatchObject({
        ok: false,
        error: { reason: "bad-path" },
      });
  });
});
