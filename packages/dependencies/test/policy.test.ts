import { describe, expect, it } from "vitest";
import { DEFAULT_DEPENDENCY_POLICY, resolveSubmissionPolicy } from "../src/index.ts";

describe("resolveSubmissionPolicy", () => {
  it("takes the challenge's bound, exemptions and runtime's ecosystem over the default registries", () => {
    const policy = resolveSubmissionPolicy({
      maxPackages: 50,
      allowNames: ["expresss"],
      runtime: "node22",
    });
    expect(policy).toEqual({
      ...DEFAULT_DEPENDENCY_POLICY,
      maxPackages: 50,
      allowNames: ["expresss"],
      ecosystems: ["npm"],
    });
    expect(
      resolveSubmissionPolicy({ maxPackages: 1, allowNames: [], runtime: "python3.11" }).ecosystems,
    ).toEqual(["PyPI"]);
  });

  it("leaves the ecosystem open for an unknown or missing runtime", () => {
    expect(
      resolveSubmissionPolicy({ maxPackages: 1, allowNames: [], runtime: null }).ecosystems,
    ).toBeUndefined();
    expect(
      resolveSubmissionPolicy({ maxPackages: 1, allowNames: [], runtime: "ruby" }).ecosystems,
    ).toBeUndefined();
  });
});
