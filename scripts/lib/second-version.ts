/**
 * @module scripts/lib/second-version
 * The second version of an example challenge that the demo publishes and the rescoring tests
 * upload (docs/design.md §30): deep-merge with one static test added ("an array replaces an
 * object"), which the reference and the complete submission pass and the partial one fails, so
 * a rescore moves scores, verdicts and ranks. Written by copying the challenge's folder.
 */
import { appendFileSync, cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The challenge the second version belongs to. */
export const SECOND_VERSION_CHALLENGE = "deep-merge";

/** The test the second version adds, as its manifest lists it. */
export const ADDED_TEST = {
  id: "array-over-object",
  file: "merge.test.mjs",
  name: "an array replaces a nested object",
  category: "edge",
} as const;

const ADDED_TEST_CODE = `
test(${JSON.stringify(ADDED_TEST.name)}, () => {
  assert.deepEqual(deepMerge({ a: { b: 1 } }, { a: [1, 2] }), { a: [1, 2] });
});
`;

/**
 * Writes the second version of challenges/<SECOND_VERSION_CHALLENGE> (found under `challengesDir`)
 * into `outDir`: the same folder with ADDED_TEST appended to its test file and its manifest.
 */
export function writeSecondVersion(challengesDir: string, outDir: string): void {
  const src = path.join(challengesDir, SECOND_VERSION_CHALLENGE);
  cpSync(src, outDir, { recursive: true });
  appendFileSync(path.join(outDir, "tests", ADDED_TEST.file), ADDED_TEST_CODE);
  const manifestPath = path.join(outDir, "challenge.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    staticTests: Record<string, string>[];
  };
  manifest.staticTests.push({ ...ADDED_TEST });
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
}
