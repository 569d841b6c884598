/** docs/deploy.md's table of variables is the roles' schemas' (npm run docs:config writes it). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { listConfigVariables } from "../../packages/edge/src/config.ts";
import { DEPLOY_DOC, withConfigTable } from "../config-docs.ts";
import { WORKER_CONFIGS } from "../lib/role-configs.ts";

describe("the variables in docs/deploy.md", () => {
  it("are generated from each role's schema (run npm run docs:config after a change)", () => {
    const doc = readFileSync(DEPLOY_DOC, "utf8");
    expect(doc).toBe(withConfigTable(doc));
  });

  it("each carry a description in their schema", () => {
    for (const { role, schema } of WORKER_CONFIGS)
      for (const v of listConfigVariables(schema))
        expect(v.description, `${role} ${v.name}`).not.toBe("");
  });
});
