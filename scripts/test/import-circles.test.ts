/**
 * No import circles among the modules of the whole tree (sources, tests, scripts, configs), type-only
 * imports included (scripts/lib/import-circles.ts), the code handed to the sandbox aside. The
 * tree must have none; a circle written to a scratch folder shows what the check catches,
 * including one that is type-only end to end, which `import-x/no-cycle` let through.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findImportCircles } from "../lib/import-circles.ts";
import { ROOT } from "../lib/local-platform.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "bouts-circles-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes `files` (path → text) under a fresh folder of the scratch dir; returns its name. */
function writeTree(name: string, files: Record<string, string>): string {
  for (const [file, text] of Object.entries(files)) {
    const full = path.join(scratch, name, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  return name;
}

describe("import circles", () => {
  it("the tree has none", async () => {
    const circles = await findImportCircles(ROOT);
    expect(circles.map((c) => c.join(" -> "))).toEqual([]);
  }, 60_000);

  it("looks at the whole tree by default, but for installed and sandboxed code", async () => {
    const circle = {
      "a.ts": 'import { b } from "./b.ts";\nexport const a = () => b;\n',
      "b.ts": 'import { a } from "./a.ts";\nexport const b = () => a;\n',
    };
    const at = (folder: string) =>
      Object.fromEntries(Object.entries(circle).map(([f, text]) => [`${folder}/${f}`, text]));
    const tree = path.join(scratch, writeTree("whole", {}));
    for (const folder of [
      "scripts/lib",
      "e2e",
      "challenges/x/submissions/y",
      "containers/runner/test/exploits/z",
      "node_modules/pkg",
      ".cache/tool",
    ])
      writeTree("whole", at(folder));
    writeTree("whole", {
      "vitest.config.ts": 'import "./root.ts";\n',
      "root.ts": 'import "./vitest.config.ts";\n',
    });
    expect(await findImportCircles(tree)).toEqual([
      ["e2e/a.ts", "e2e/b.ts"],
      ["root.ts", "vitest.config.ts"],
      ["scripts/lib/a.ts", "scripts/lib/b.ts"],
    ]);
  });

  it("finds a circle of type-only imports, once, from its first file", async () => {
    const root = writeTree("types", {
      "src/b.ts": 'import type { C } from "./c.ts";\nexport type B = { c: C };\n',
      "src/c.ts": 'import type { A } from "./a.ts";\nexport type C = { a?: A };\n',
      "src/a.ts": 'import type { B } from "./b.ts";\nexport interface A { b: B }\n',
    });
    expect(await findImportCircles(scratch, [root])).toEqual([
      ["types/src/a.ts", "types/src/b.ts", "types/src/c.ts"],
    ]);
  });

  it("finds a circle through a re-export and a value import", async () => {
    const root = writeTree("values", {
      "src/index.ts": 'export { two } from "./two.ts";\nexport const one = 1;\n',
      "src/two.ts": 'import { one } from "./index.ts";\nexport const two = one + 1;\n',
    });
    expect(await findImportCircles(scratch, [root])).toEqual([
      ["values/src/index.ts", "values/src/two.ts"],
    ]);
  });

  it("lets a diamond be", async () => {
    const root = writeTree("diamond", {
      "src/top.ts": 'import "./left.ts";\nimport "./right.ts";\n',
      "src/left.ts": 'import type { T } from "./base.ts";\nexport const l: T = 1;\n',
      "src/right.ts": 'import type { T } from "./base.ts";\nexport const r: T = 2;\n',
      "src/base.ts": "export type T = number;\n",
    });
    expect(await findImportCircles(scratch, [root])).toEqual([]);
  });
});
