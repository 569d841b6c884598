/**
 * The public/private split at bundle upload and publish (docs/design.md §29): a seeded split is
 * drawn and recorded (seed and assignment) at publish, the same as a re-draw from the manifest;
 * a manifest whose split is invalid is refused at upload with a 422 naming the field; final
 * choices and the private board refuse what they must, through the HTTP API.
 */
import { env } from "cloudflare:workers";
import { ChallengeManifestSchema, resolveManifestSplit } from "@bouts/contracts";
import { createDb, findSplit } from "@bouts/db";
import { describe, expect, it } from "vitest";
import {
  call,
  callJson,
  createAgent,
  expectProblem,
  manifest,
  seedOperator,
  tarGz,
} from "./helpers.ts";

const tests = ["a", "b", "c", "d"].map((x) => ({
  id: `fizz.${x}`,
  file: "static/fizz.test.js",
  name: `fizz ${x}`,
  category: "functionality",
}));

async function draftWith(token: string, slug: string, split: unknown) {
  const created = await callJson(
    "/v1/challenges",
    "POST",
    { slug, title: slug, profile: "engineering", maxIterations: 3 },
    token,
  );
  expect(created.status).toBe(201);
  const { id } = await created.json<{ id: string }>();
  const m = manifest(slug, { staticTests: tests, split });
  const up = await call(`/v1/challenges/${id}/bundle`, {
    method: "PUT",
    headers: { "Content-Type": "application/gzip" },
    body: await tarGz({
      "challenge.json": JSON.stringify(m),
      "tests/static/fizz.test.js": tests.map((t) => `// ${t.name}`).join("\n"),
    }),
    token,
  });
  return { id, up, manifest: m };
}

describe("a challenge's split", () => {
  it("records a seeded split at publish, seed and the same assignment a re-draw gives", async () => {
    const op = await seedOperator();
    const {
      id,
      up,
      manifest: m,
    } = await draftWith(op.token, "split-seeded", {
      seed: "spring",
      privatePercent: 50,
      finalChoices: 3,
    });
    expect(up.status).toBe(200);
    const pub = await call(`/v1/challenges/${id}/publish`, { method: "POST", token: op.token });
    expect(pub.status).toBe(200);
    const row = await findSplit(createDb(env.DB), id);
    const redrawn = resolveManifestSplit(ChallengeManifestSchema.parse(m));
    expect(row).toMatchObject({
      method: "seeded",
      seed: "spring",
      privatePercent: 50,
      finalChoices: 3,
    });
    expect(JSON.parse(row!.privateIds)).toEqual(redrawn!.privateIds);
    expect(redrawn!.privateIds).toHaveLength(2);

    // Open: no private board, and choices refuse what is not the agent's own scored submission.
    await expectProblem(await call(`/v1/challenges/${id}/private-leaderboard`), 409);
    const agent = await createAgent(op.token);
    const choices = await call(`/v1/challenges/${id}/final-choices`, { token: agent.token });
    expect(await choices.json()).toMatchObject({ submissionIds: [], limit: 3, fallback: "latest" });
    const bad = await callJson(
      `/v1/challenges/${id}/final-choices`,
      "PUT",
      { submissionIds: ["someone-elses"] },
      agent.token,
    );
    // A foreign or missing id is 404, as everywhere else.
    expect((await expectProblem(bad, 404)).detail).toMatch(/submission/);
    // A list that names a submission twice breaks the document's `uniqueItems`: 400, in words,
    // before any lookup (the schema, not the stored data, rules it out).
    const twice = await callJson(
      `/v1/challenges/${id}/final-choices`,
      "PUT",
      { submissionIds: ["someone-elses", "someone-elses"] },
      agent.token,
    );
    expect((await expectProblem(twice, 400)).detail).toMatch(/listed twice/);
    const doc = await (
      await call("/openapi.json")
    ).json<{
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    }>();
    expect(doc.components.schemas.FinalChoicesRequest?.properties.submissionIds).toMatchObject({
      type: "array",
      maxItems: 10,
      uniqueItems: true,
    });
    const notJson = await call(`/v1/challenges/${id}/final-choices`, {
      method: "PUT",
      token: agent.token,
      headers: { "Content-Type": "application/json" },
      body: "{",
    });
    await expectProblem(notJson, 400);
    // An operator key is not an agent's.
    await expectProblem(
      await callJson(`/v1/challenges/${id}/final-choices`, "PUT", { submissionIds: [] }, op.token),
      403,
    );

    // Closed: the board is published (no entries: nobody scored), choices are refused.
    expect(
      (await call(`/v1/challenges/${id}/close`, { method: "POST", token: op.token })).status,
    ).toBe(200);
    const board = await call(`/v1/challenges/${id}/private-leaderboard`);
    expect(board.status).toBe(200);
    expect(await board.json()).toMatchObject({
      split: { method: "seeded", seed: "spring", privateTests: redrawn!.privateIds },
      entries: [],
    });
    const late = await callJson(
      `/v1/challenges/${id}/final-choices`,
      "PUT",
      { submissionIds: [] },
      agent.token,
    );
    expect((await expectProblem(late, 409)).detail).toMatch(/closed/);
  });

  it("refuses a split that holds out every test of a category, naming the field (422)", async () => {
    const op = await seedOperator();
    const { up } = await draftWith(op.token, "split-bad", { private: tests.map((t) => t.id) });
    const body = await expectProblem(up, 422);
    expect(JSON.stringify(body)).toMatch(/split/);
  });

  it("has no private board for a challenge without a split", async () => {
    const op = await seedOperator();
    const { id, up } = await draftWith(op.token, "split-none", undefined);
    expect(up.status).toBe(200);
    expect(
      (await call(`/v1/challenges/${id}/publish`, { method: "POST", token: op.token })).status,
    ).toBe(200);
    expect(
      (await call(`/v1/challenges/${id}/close`, { method: "POST", token: op.token })).status,
    ).toBe(200);
    expect(
      (await expectProblem(await call(`/v1/challenges/${id}/private-leaderboard`), 409)).detail,
    ).toMatch(/no private board/);
  });
});
