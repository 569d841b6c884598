/**
 * The production image copies every workspace package the runner imports, directly or through
 * another package: a package missing from the Dockerfile builds fine and fails at start-up.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.join(import.meta.dirname, "../../..");

function workspaceDeps(dir: string): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, dir, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  return Object.keys(pkg.dependencies ?? {})
    .filter((name) => name.startsWith("@bouts/"))
    .map((name) => `packages/${name.slice("@bouts/".length)}`);
}

function closure(start: string): Set<string> {
  const seen = new Set<string>();
  const queue = workspaceDeps(start);
  while (queue.length > 0) {
    const dir = queue.shift()!;
    if (seen.has(dir)) continue;
    seen.add(dir);
    queue.push(...workspaceDeps(dir));
  }
  return seen;
}

describe("the runner's Dockerfile", () => {
  const dockerfile = readFileSync(path.join(ROOT, "containers/runner/Dockerfile"), "utf8");

  it("copies the runner's whole workspace dependency closure, and installs it", () => {
    const needed = closure("containers/runner");
    const copied = new Set(
      [...dockerfile.matchAll(/^COPY (packages\/[a-z-]+) packages\/[a-z-]+$/gm)].map((m) => m[1]!),
    );
    const manifests = new Set(
      [...dockerfile.matchAll(/^COPY (packages\/[a-z-]+)\/package\.json /gm)].map((m) => m[1]!),
    );
    const installed = new Set(
      [...dockerfile.matchAll(/--workspace @bouts\/([a-z-]+)/g)].map((m) => `packages/${m[1]!}`),
    );
    expect(needed.size).toBeGreaterThan(3);
    for (const dir of needed) {
      expect(copied, `${dir} sources`).toContain(dir);
      expect(manifests, `${dir} package.json`).toContain(dir);
      expect(installed, `${dir} in npm ci`).toContain(dir);
    }
  });
});
