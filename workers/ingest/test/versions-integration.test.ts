/**
 * A new version's upload through the HTTP API with the fake runner's QA (docs/design.md §30):
 * who may upload, what QA refusal records, and the baselines rule. Hostile: a version cannot
 * swap a baseline's files (its line would show a score the published bundle does not hold),
 * add one or drop one; keeping them as published is accepted. The rescoring itself runs in the
 * score role's tests (workers/score/test/versions-integration.test.ts).
 */
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

const BASELINE = {
  id: "reference",
  label: "reference solution",
  kind: "reference",
  path: "reference",
};

function bundleWith(
  slug: string,
  files: Record<string, string>,
  extra: Record<string, unknown> = {},
) {
  return tarGz({
    "challenge.json": JSON.stringify(manifest(slug, { baselines: [BASELINE], ...extra })),
    "tests/static/fizz.test.js": "// hidden test\n",
    ...files,
  });
}

const upload = (id: string, token: string, body: Uint8Array) =>
  call(`/v1/challenges/${id}/versions?note=test`, {
    method: "POST",
    headers: { "Content-Type": "application/gzip" },
    body,
    token,
  });

async function publishedWithBaseline(token: string, slug: string) {
  const created = await callJson(
    "/v1/challenges",
    "POST",
    { slug, title: slug, profile: "engineering", maxIterations: 3 },
    token,
  );
  const { id } = await created.json<{ id: string }>();
  const up = await call(`/v1/challenges/${id}/bundle`, {
    method: "PUT",
    headers: { "Content-Type": "application/gzip" },
    body: await bundleWith(slug, {
      "reference/app.js": "export const x = 1;\n",
      "reference/NOTES.md": "n\n",
    }),
    token,
  });
  expect(up.status).toBe(200);
  expect((await call(`/v1/challenges/${id}/publish`, { method: "POST", token })).status).toBe(200);
  return id;
}

describe("uploading a challenge version", () => {
  it("is refused for a draft, an agent and a baseline that changed; accepted when they are kept", async () => {
    const op = await seedOperator();
    const slug = "versions-a";
    const draft = await callJson(
      "/v1/challenges",
      "POST",
      { slug: "versions-draft", title: "d", profile: "engineering", maxIterations: 3 },
      op.token,
    );
    const { id: draftId } = await draft.json<{ id: string }>();
    const v = await bundleWith("versions-draft", { "reference/app.js": "x\n" });
    expect((await expectProblem(await upload(draftId, op.token, v), 409)).detail).toContain(
      "draft",
    );

    const id = await publishedWithBaseline(op.token, slug);
    const agent = await createAgent(op.token);
    expect((await upload(id, agent.token, await bundleWith(slug, {}))).status).toBe(403);
    // Another operator's challenge is missing to it.
    const other = await seedOperator("other");
    expect((await upload(id, other.token, await bundleWith(slug, {}))).status).toBe(404);

    const changed = await bundleWith(slug, {
      "reference/app.js": "export const x = 2; // quietly better\n",
      "reference/NOTES.md": "n\n",
    });
    const refused = await expectProblem(await upload(id, op.token, changed), 422);
    expect(refused.detail).toContain("reference: new or changed");
    const dropped = await tarGz({
      "challenge.json": JSON.stringify(manifest(slug, { baselines: [] })),
      "tests/static/fizz.test.js": "// hidden test\n",
    });
    expect((await expectProblem(await upload(id, op.token, dropped), 422)).detail).toContain(
      "reference: removed",
    );

    // The same baseline folder with a revised test file: accepted, and rescoring starts.
    const kept = await bundleWith(slug, {
      "reference/app.js": "export const x = 1;\n",
      "reference/NOTES.md": "n\n",
      "tests/static/fizz.test.js": "// hidden test, revised\n",
    });
    const res = await upload(id, op.token, kept);
    expect(res.status).toBe(201);
    // Nothing is scored yet here (no queue consumer runs in these tests): nothing to rescore,
    // so the version is ready at once.
    expect(await res.json()).toMatchObject({
      version: 2,
      baseVersion: 1,
      state: "ready",
      rescores: { total: 0 },
    });
    const list = await call(`/v1/challenges/${id}/versions`, { token: op.token });
    expect(await list.json()).toMatchObject({ liveVersion: 1, versions: [{ version: 2 }] });
  });

  it("answers 503 with Retry-After and uses no version number when the runner fails during QA", async () => {
    const op = await seedOperator("qa-infra");
    const slug = "versions-qa-infra";
    const id = await publishedWithBaseline(op.token, slug);
    const crashing = await bundleWith(slug, {
      "reference/app.js": "export const x = 1;\n",
      "reference/NOTES.md": "n\n",
      "tests/static/fizz.test.js": "// RUNNER_CRASH\n",
    });
    const res = await upload(id, op.token, crashing);
    const problem = await expectProblem(res, 503);
    expect(res.headers.get("Retry-After")).toBe("30");
    expect(problem.detail).toContain("runner");
    const list = await call(`/v1/challenges/${id}/versions`, { token: op.token });
    expect(await list.json()).toMatchObject({ liveVersion: 1, versions: [] });
  });
});

describe("the versions resource's one owner check", () => {
  // Every operation on a challenge's versions, as [name, request for challenge `id`].
  const operations: [string, (id: string, token: string) => Promise<Response>][] = [
    ["upload", (id, token) => upload(id, token, new Uint8Array([0x1f, 0x8b, 0, 0]))],
    ["list", (id, token) => call(`/v1/challenges/${id}/versions`, { token })],
    ["get", (id, token) => call(`/v1/challenges/${id}/versions/2`, { token })],
    ["diff", (id, token) => call(`/v1/challenges/${id}/versions/2/diff`, { token })],
    [
      "promote",
      (id, token) =>
        callJson(`/v1/challenges/${id}/versions/2/promote`, "POST", { reason: "r" }, token),
    ],
    [
      "discard",
      (id, token) =>
        callJson(`/v1/challenges/${id}/versions/2/discard`, "POST", { reason: "r" }, token),
    ],
  ];

  it.each(operations)(
    "answers %s on another operator's challenge exactly as on a missing one",
    async (_name, send) => {
      const owner = await seedOperator("owner");
      const other = await seedOperator("other");
      const created = await callJson(
        "/v1/challenges",
        "POST",
        {
          slug: `owned-${crypto.randomUUID().slice(0, 8)}`,
          title: "t",
          profile: "engineering",
          maxIterations: 3,
        },
        owner.token,
      );
      const { id } = await created.json<{ id: string }>();
      const foreign = await expectProblem(await send(id, other.token), 404);
      const missing = await expectProblem(await send(crypto.randomUUID(), other.token), 404);
      expect(foreign).toEqual(missing);
      expect(foreign.detail).toBe("No such challenge.");
    },
  );

  it("checks the owner before the version: the owner's missing version is its own 404", async () => {
    const owner = await seedOperator("owner-versions");
    const created = await callJson(
      "/v1/challenges",
      "POST",
      { slug: "owned-versions", title: "t", profile: "engineering", maxIterations: 3 },
      owner.token,
    );
    const { id } = await created.json<{ id: string }>();
    for (const [name, send] of operations.slice(2)) {
      const problem = await expectProblem(await send(id, owner.token), 404);
      expect(problem.detail, name).toBe("No such challenge version.");
    }
  });
});
