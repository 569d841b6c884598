/**
 * Where tests live (docs/design.md, "Where tests live"): in each workspace's `test/` folder,
 * never under `src/`, and every workspace's vitest project reads `test/` alone, so a test
 * left beside the code would not run.
 */
import { globSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.join(import.meta.dirname, "../..");
const WORKSPACES = ["packages/*", "workers/*", "containers/*"];

describe("test placement", () => {
  it("keeps no test under any workspace's src/", () => {
    const misplaced = globSync(
      WORKSPACES.map((w) => `${w}/src/**/*.test.{ts,mjs,js}`),
      { cwd: ROOT, exclude: (p) => p.includes("node_modules") },
    );
    expect(misplaced).toEqual([]);
  });

  it("has every workspace's vitest project read test/ only", () => {
    const configs = globSync(
      WORKSPACES.map((w) => `${w}/vitest.config.ts`),
      { cwd: ROOT },
    );
    expect(configs.length).toBeGreaterThan(15);
    for (const file of configs) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      const includes = [...text.matchAll(/include:\s*\[([^\]]*)\]/g)].map((m) => m[1]!);
      expect(includes.length, file).toBeGreaterThan(0);
      for (const list of includes) expect(list, file).not.toMatch(/["']src\//);
    }
  });
});
