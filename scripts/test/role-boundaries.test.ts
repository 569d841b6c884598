/**
 * The lint rule that keeps the roles apart (eslint.config.js, `ROLE_BOUNDARIES`): no file under
 * workers/<role> imports another folder of workers/, by relative path or by workspace name, type
 * imports included; the platform Worker, which composes the roles, may. `npm run lint` applies
 * it to the tree; this test shows what it catches, on code that is not in the tree. (The rule
 * follows imports that resolve; one that does not fails the typecheck anyway.)
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { ESLint, type Linter } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import { ROOT } from "../lib/local-platform.ts";

// A computed path: the config is JavaScript, which the scripts' TypeScript project does not read.
const config = (await import(path.join(ROOT, "eslint.config.js"))) as {
  ROLE_BOUNDARIES: Linter.Config;
  COMPOSING_WORKER: string;
};
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfigFile: true,
  overrideConfig: [{ languageOptions: { parser: tseslint.parser } }, config.ROLE_BOUNDARIES],
});

/** The lines of `code`, linted as `filePath`, that the boundary rule reports. */
async function refused(filePath: string, code: string): Promise<number[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return (
    result!.messages
      .filter((m) => m.ruleId === "import-x/no-restricted-paths")
      .map((m) => m.line)
      // A line two zones refuse (another role's test/ folder) is reported once per zone.
      .filter((line, i, lines) => lines.indexOf(line) === i)
  );
}

describe("the role boundaries", () => {
  it("refuse another role by workspace name or by path, type-only and re-exports too", async () => {
    const code = [
      'import { reconcileScoring } from "@bouts/score";',
      'import type { EventMessage } from "@bouts/webhooks-worker";',
      'import { publishScored } from "../../score/src/publish.ts";',
      'export { ChallengeLeaderboard } from "@bouts/leaderboard";',
      'import { app } from "@bouts/platform";',
    ].join("\n");
    expect(await refused("workers/ingest/src/example.ts", code)).toEqual([1, 2, 3, 4, 5]);
  });

  it("hold in a role's tests as in its sources", async () => {
    const code = 'import { seedChallenge } from "../../leaderboard/test/helpers.ts";';
    expect(await refused("workers/score/test/example.test.ts", code)).toEqual([1]);
  });

  it("let a role import packages and its own files", async () => {
    const code = [
      'import { eventMessage } from "@bouts/contracts";',
      'import { createDb } from "@bouts/db";',
      'import { fail } from "../errors.ts";',
    ].join("\n");
    expect(await refused("workers/webhooks/src/routes/example.ts", code)).toEqual([]);
  });

  it("let the platform Worker compose every role", async () => {
    const code = [
      'import { ingestRoutes } from "@bouts/ingest";',
      'import { consumeSubmissions } from "@bouts/score";',
      'import { seedChallenge } from "../../leaderboard/test/helpers.ts";',
    ].join("\n");
    expect(await refused("workers/platform/src/example.ts", code)).toEqual([]);
  });

  it("cover every folder of workers/ but the platform's", () => {
    const rule = config.ROLE_BOUNDARIES.rules!["import-x/no-restricted-paths"] as [
      string,
      { zones: { target: string; from: string | string[] }[] },
    ];
    const roles = readdirSync(path.join(ROOT, "workers"), { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== config.COMPOSING_WORKER)
      .map((d) => `./workers/${d.name}`);
    const roleZones = rule[1].zones.filter((z) => z.from === "./workers");
    expect(roleZones.map((z) => z.target).sort()).toEqual(roles.sort());
    expect(roles).toContain("./workers/ingest");
  });
});

describe("the workspace boundaries", () => {
  // The rule follows imports that resolve, so these name files in the tree.
  it("refuse scripts/ and another workspace's tests, in sources, tests and configs", async () => {
    const fromScore = [
      'import { ROOT } from "../../scripts/lib/local-platform.ts";',
      'import { packs } from "../../packages/archive/test/measure-bomb.ts";',
      'import { support } from "../../packages/ranking/test/support.ts";',
    ].join("\n");
    expect(await refused("workers/score/vitest.config.ts", fromScore)).toEqual([1, 2, 3]);
    const fromRunnerTest = [
      'import { ROOT } from "../../../scripts/lib/local-platform.ts";',
      'import { seedChallenge } from "../../../workers/ingest/test/helpers.ts";',
    ].join("\n");
    expect(await refused("containers/runner/test/example.test.ts", fromRunnerTest)).toEqual([1, 2]);
    const fromPackage = 'import { ROOT } from "../../../../scripts/lib/local-platform.ts";';
    expect(await refused("packages/db/src/queries/example.ts", fromPackage)).toEqual([1]);
  });

  it("let a workspace import its own tests and the shared fixtures", async () => {
    const code = [
      'import { buildZip } from "@bouts/fixtures";',
      'import { support } from "./support.ts";',
      'import { scoring } from "@bouts/scoring";',
    ].join("\n");
    expect(await refused("packages/ranking/test/example.test.ts", code)).toEqual([]);
    const config = 'import { buildZip, writeSecondVersion } from "@bouts/fixtures";';
    expect(await refused("workers/score/vitest.config.ts", config)).toEqual([]);
  });
});
