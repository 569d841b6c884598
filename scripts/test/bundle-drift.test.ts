/**
 * What `npm start` says of a published example whose live bundle differs from its folder
 * (scripts/lib/bundle-drift.ts): after the demo promotes deep-merge's second version, the live
 * bundle is the newer one and the folder is unchanged; only a folder whose bundle is no version
 * of the challenge is called changed.
 */
import { describe, expect, it } from "vitest";
import { describeBundleDrift } from "../lib/bundle-drift.ts";

const V1 = "a".repeat(64);
const V2 = "b".repeat(64);
const EDITED = "c".repeat(64);

describe("describeBundleDrift", () => {
  it("names the promoted later version when the folder packs to an earlier one", () => {
    const line = describeBundleDrift("published", "deep-merge", V1, {
      liveVersion: 2,
      versions: [
        { version: 2, bundleSha256: V2 },
        { version: 1, bundleSha256: V1 },
      ],
    });
    expect(line).toBe(
      "published on version 2, promoted after challenges/deep-merge's bundle (version 1); the folder is unchanged",
    );
    expect(line).not.toMatch(/\bolder\b/);
  });

  it("names the promoted version after the demo, whose list holds only uploaded versions", () => {
    const line = describeBundleDrift("published", "deep-merge", V1, {
      liveVersion: 2,
      versions: [{ version: 2, bundleSha256: V2 }],
    });
    expect(line).toBe(
      "published on version 2, promoted after it was seeded; challenges/deep-merge packs to aaaaaaaaaaaa, the seeded version 1 unless the folder was edited since",
    );
  });

  it("says the folder changed when its bundle is no version of the challenge", () => {
    const list = { liveVersion: 1, versions: [{ version: 1, bundleSha256: V1 }] };
    expect(describeBundleDrift("published", "deep-merge", EDITED, list)).toMatch(
      /^published; challenges\/deep-merge changed since it was seeded \(it now packs to cccccccccccc\)/,
    );
    expect(describeBundleDrift("closed", "deep-merge", EDITED, null)).toMatch(
      /^closed; .* changed/,
    );
  });
});
