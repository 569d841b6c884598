/**
 * Where tests live (docs/design.md, "Where tests live"): in each workspace's `test/` folder,
 * never under `src/`, and every workspace's vitest project reads `test/` alone, so a test
 * left beside the code would not run. A workerd project shares its workerd across files only
 * with a setup file that empties storage before each.
 */
import { globSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { workspaceConfigFiles } from "../lib/vitest-projects.ts";

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
    const configs = workspaceConfigFiles();
    expect(configs.length).toBeGreaterThanOrEqual(7);
    for (const file of configs) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      const includes = [...text.matchAll(/include:\s*\[([^\]]*)\]/g)].map((m) => m[1]!);
      expect(includes.length, file).toBeGreaterThan(0);
      for (const list of includes) expect(list, file).not.toMatch(/["']src\//);
    }
  });

  it("runs every test file of every workspace's test/ in some project", () => {
    // A workspace's tests may run in another's project (the platform's runs the leaderboard's
    // and the gateway's): what must hold is that none is left out of every project.
    const configs = workspaceConfigFiles();
    const globsOf = (text: string, key: "include" | "exclude") =>
      [...text.matchAll(new RegExp(`${key}:\\s*\\[([^\\]]*)\\]`, "g"))].flatMap((m) =>
        [...m[1]!.matchAll(/["']([^"']+)["']/g)].map((q) => q[1]!),
      );
    const covered = new Set<string>();
    for (const file of configs) {
      const dir = path.dirname(file);
      const text = readFileSync(path.join(ROOT, file), "utf8");
      const exclude = globsOf(text, "exclude").map((g) => path.join(dir, g));
      for (const match of globSync(
        globsOf(text, "include").map((g) => path.join(dir, g)),
        { cwd: ROOT },
      ))
        if (!exclude.some((g) => path.matchesGlob(match, g))) covered.add(match);
    }
    const files = globSync(
      WORKSPACES.map((w) => `${w}/test/**/*.test.ts`),
      { cwd: ROOT, exclude: (p) => p.includes("node_modules") },
    );
    expect(files.length).toBeGreaterThan(200);
    expect(files.filter((f) => f.startsWith("workers/leaderboard/"))).not.toEqual([]);
    expect(files.filter((f) => !covered.has(f))).toEqual([]);
  });

  it("shares a workerd across files only where each file's setup empties storage first", () => {
    const configs = workspaceConfigFiles().filter((file) =>
      readFileSync(path.join(ROOT, file), "utf8").includes("cloudflareTest("),
    );
    expect(configs.length).toBeGreaterThanOrEqual(5);
    for (const file of configs) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      if (!/^\s*isolate:\s*false,/m.test(text)) continue;
      const setups = [...text.matchAll(/setupFiles:\s*\[([^\]]*)\]/g)].flatMap((m) =>
        [...m[1]!.matchAll(/["']([^"']+)["']/g)].map((q) => q[1]!),
      );
      expect(setups, file).toHaveLength(1);
      const setup = readFileSync(path.join(ROOT, path.dirname(file), setups[0]!), "utf8");
      // reset() first, then the migrations: the other order would wipe the schema it applied.
      expect(setup, file).toMatch(/^await reset\(\);\nawait applyD1Migrations\(/m);
    }
  });
});
