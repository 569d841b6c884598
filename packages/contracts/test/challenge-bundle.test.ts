import { describe, expect, it } from "vitest";
import {
  ChallengeManifestSchema,
  RelativePathSchema,
  resolveManifestSplit,
} from "../src/challenge-bundle.ts";

const base = {
  schemaVersion: 1,
  id: "todo-api",
  title: "Todo API",
  runtime: "node22",
  testFramework: "node:test",
  staticTests: [{ id: "s1", file: "static.test.mjs", name: "creates", category: "functionality" }],
  adversarialTests: [{ id: "a1", file: "adv.test.mjs", name: "sqli", severity: "critical" }],
};

describe("challenge manifest", () => {
  it("fills limits with the engineering spec's 10-second test timeout", () => {
    const m = ChallengeManifestSchema.parse(base);
    expect(m.limits.testTimeoutMs).toBe(10_000);
    expect(m.dependencies.lockfile).toBeNull();
  });
  it("rejects a runtime and framework that disagree", () => {
    expect(ChallengeManifestSchema.safeParse({ ...base, testFramework: "pytest" }).success).toBe(
      false,
    );
  });
  it("rejects duplicate test ids across static and adversarial tests", () => {
    const dup = { ...base, adversarialTests: [{ ...base.adversarialTests[0], id: "s1" }] };
    expect(ChallengeManifestSchema.safeParse(dup).success).toBe(false);
  });
  it("rejects a per-test timeout above ten seconds", () => {
    expect(
      ChallengeManifestSchema.safeParse({ ...base, limits: { testTimeoutMs: 60_000 } }).success,
    ).toBe(false);
  });
  it("leaves the run budget unset so the runner derives it", () => {
    expect(ChallengeManifestSchema.parse(base).limits.runWallMs).toBeUndefined();
  });
  it("accepts a challenge's own run budget and rejects one above an hour", () => {
    const own = ChallengeManifestSchema.parse({ ...base, limits: { runWallMs: 90_000 } });
    expect(own.limits.runWallMs).toBe(90_000);
    expect(
      ChallengeManifestSchema.safeParse({ ...base, limits: { runWallMs: 7_200_000 } }).success,
    ).toBe(false);
  });
  it("rejects traversal and absolute paths", () => {
    for (const p of ["../x", "/etc/passwd", "a/../b", "C:/x", "a\\b", "a//b"]) {
      expect(RelativePathSchema.safeParse(p).success, p).toBe(false);
    }
    expect(RelativePathSchema.safeParse("tests/a.test.mjs").success).toBe(true);
  });
});

describe("manifest dependencies", () => {
  const withDependencies = (dependencies: unknown) =>
    ChallengeManifestSchema.safeParse({ ...base, dependencies });

  it("refuses submissions' dependencies by default, with every bound at its default", () => {
    expect(ChallengeManifestSchema.parse(base).dependencies).toEqual({
      lockfile: null,
      submissions: {
        allowed: false,
        maxPackages: 200,
        maxInstalledBytes: 64 * 1024 * 1024,
        maxInstallMs: 120_000,
      },
      allowNames: [],
    });
  });

  it("keeps an existing manifest's dependencies valid, filling the new fields", () => {
    const m = withDependencies({ lockfile: "package-lock.json" });
    expect(m.success && m.data.dependencies).toMatchObject({
      lockfile: "package-lock.json",
      submissions: { allowed: false, maxPackages: 200 },
      allowNames: [],
    });
  });

  it("takes a challenge that allows submissions' dependencies, within its bounds", () => {
    const m = withDependencies({
      lockfile: null,
      submissions: { allowed: true, maxPackages: 2000, maxInstalledBytes: 512 * 1024 * 1024 },
      allowNames: ["expresss", "@scope/pkg", "Flask_Bcrypt", "ruamel.yaml"],
    });
    expect(m.success && m.data.dependencies.submissions).toEqual({
      allowed: true,
      maxPackages: 2000,
      maxInstalledBytes: 512 * 1024 * 1024,
      maxInstallMs: 120_000,
    });
  });

  it.each([
    ["maxPackages over 2000", { submissions: { maxPackages: 2001 } }],
    ["maxPackages of 0", { submissions: { maxPackages: 0 } }],
    ["maxPackages not an integer", { submissions: { maxPackages: 1.5 } }],
    [
      "maxInstalledBytes over 512 MiB",
      { submissions: { maxInstalledBytes: 512 * 1024 * 1024 + 1 } },
    ],
    ["maxInstalledBytes under 1 MiB", { submissions: { maxInstalledBytes: 1000 } }],
    ["maxInstallMs over ten minutes", { submissions: { maxInstallMs: 600_001 } }],
    ["maxInstallMs under a second", { submissions: { maxInstallMs: 999 } }],
    ["allowed as a string", { submissions: { allowed: "yes" } }],
    ["an unknown submissions field", { submissions: { registry: "https://evil.test" } }],
    ["an unknown dependencies field", { registries: ["https://evil.test"] }],
    ["more than 100 allowed names", { allowNames: Array.from({ length: 101 }, (_, i) => `p${i}`) }],
    ["an allowed name with a space", { allowNames: ["bad name"] }],
    ["an allowed name that is a URL", { allowNames: ["https://evil.test/x"] }],
    ["an empty allowed name", { allowNames: [""] }],
  ])("rejects %s", (_what, dependencies) => {
    expect(withDependencies({ lockfile: null, ...dependencies }).success).toBe(false);
  });
});

describe("manifest split", () => {
  const two = {
    ...base,
    staticTests: [
      ...base.staticTests,
      { id: "s2", file: "static.test.mjs", name: "lists", category: "functionality" },
    ],
  };
  it("records a declared split with its default of two final choices", () => {
    const m = ChallengeManifestSchema.parse({ ...two, split: { private: ["s2", "a1"] } });
    expect(m.split?.finalChoices).toBe(2);
    expect(resolveManifestSplit(m)).toEqual({
      method: "declared",
      seed: null,
      privatePercent: null,
      privateIds: ["a1", "s2"],
    });
  });
  it("draws a seeded split from the manifest's strata, the same every time", () => {
    const m = ChallengeManifestSchema.parse({ ...two, split: { seed: "x", privatePercent: 50 } });
    const s = resolveManifestSplit(m);
    expect(s).toEqual(resolveManifestSplit(m));
    expect(s?.privateIds).toHaveLength(1);
  });
  it("is null without a split", () => {
    expect(resolveManifestSplit(ChallengeManifestSchema.parse(base))).toBeNull();
  });
  it("rejects an unknown private id, an all-private category and a mixed declaration", () => {
    const bad = (split: unknown) => ChallengeManifestSchema.safeParse({ ...two, split }).success;
    expect(bad({ private: ["nope"] })).toBe(false);
    expect(bad({ private: ["s1", "s2"] })).toBe(false);
    expect(bad({ private: ["s1"], seed: "x", privatePercent: 10 })).toBe(false);
    expect(bad({ seed: "x" })).toBe(false);
    expect(bad({ private: ["s1"], finalChoices: 11 })).toBe(false);
  });
});
