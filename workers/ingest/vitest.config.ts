/**
 * Vitest project "ingest": the routes run in workerd through the Cloudflare plugin, against
 * the root wrangler.toml (the one platform Worker), with the D1 migrations applied in a setup
 * file. The runner's challenge QA is reached over RUNNER_URL, served Node-side by
 * test/fake-runner.ts: the real runner for the example challenges, a stand-in for synthetic
 * bundles. The example bundles (packed here, where the file system is) reach the tests as
 * base64 bindings.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";
import { FAKE_RUNNER_URL, handleFakeRunner, RUNNER_SECRET } from "./test/fake-runner.ts";
import { buildCorpus, packDirectory } from "@bouts/fixtures";

const root = path.join(import.meta.dirname, "../..");
const migrations = await readD1Migrations(path.join(root, "migrations"));

// The hostile-archive corpus of @bouts/archive (built with node:zlib, so here), minus the
// archives over ingest's size limit (those are 413 before any parsing).
async function buildHostileCorpus(): Promise<string> {
  return JSON.stringify(
    await Promise.all(
      buildCorpus()
        .filter((c) => c.refusal && c.refusal.reason !== "archive-too-large")
        .map(async (c) => ({
          name: c.name,
          refusal: c.refusal,
          base64: Buffer.from(await c.build()).toString("base64"),
        })),
    ),
  );
}

/** Packs an example challenge as a bundle (.tar.gz, base64), optionally altering files. */
function packExample(name: string, replace: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bouts-bundle-"));
  try {
    cpSync(path.join(root, "challenges", name), dir, { recursive: true });
    for (const [file, content] of Object.entries(replace))
      writeFileSync(path.join(dir, file), content);
    // Reproducible: the bundle's sha256 must not depend on the checkout's mtimes.
    return Buffer.from(packDirectory(dir, ["submissions", "README.md"])).toString("base64");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The bundles and the corpus, built once, when the first of this project's workerd starts:
 * vitest loads every project's config for every run, also the runs that leave ingest out (the
 * e2e, contract and contention steps of npm test), where building them was ≈ 2 CPU-s of waste.
 */
let testBindings: Promise<Record<string, string>> | undefined;
const buildTestBindings = async (): Promise<Record<string, string>> => ({
  TEST_BUNDLE_DEEP_MERGE: packExample("deep-merge"),
  TEST_HOSTILE_ARCHIVES: await buildHostileCorpus(),
  // The reference solution no longer merges: the runner's QA must refuse to publish.
  TEST_BUNDLE_DEEP_MERGE_BROKEN: packExample("deep-merge", {
    "reference/merge.mjs": "export function deepMerge() { return {}; }\n",
  }),
});

export default defineProject({
  plugins: [
    cloudflareTest(async () => ({
      wrangler: { configPath: path.join(root, "wrangler.toml") },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: migrations,
          RUNNER_URL: FAKE_RUNNER_URL,
          RUNNER_SHARED_SECRET: RUNNER_SECRET,
          ...(await (testBindings ??= buildTestBindings())),
        },
        outboundService: handleFakeRunner,
        // The platform's score role consumes the submissions queue; these tests observe the
        // write side (a queued submission stays queued), so the consumer never gets a batch
        // within a test file's lifetime. The consumer is tested in the score project.
        queueConsumers: { "bouts-submissions": { maxBatchSize: 100, maxBatchTimeout: 60 } },
      },
    })),
  ],
  test: {
    name: "ingest",
    // npm test runs these beside lint, the type check and e2e on two cores: a CPU-bound
    // test gets seconds of margin, not vitest's default 5 s.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ["test/**/*.test.ts"],
    setupFiles: ["./test/apply-migrations.ts"],
    // One workerd for the files a vitest worker runs, not one per file (test/apply-migrations.ts
    // empties storage before each file).
    isolate: false,
  },
});
