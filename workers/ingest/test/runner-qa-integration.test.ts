/**
 * Publishing against the real runner (test/fake-runner.ts starts `npm run runner` for the
 * example challenges): the runner's challenge QA runs the bundle's reference solution in its
 * sandbox, and only a passing QA publishes.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, callJson, expectProblem, seedOperator } from "./helpers.ts";

const REAL_QA_TIMEOUT = 180_000;

function fromBase64(b64: string): Uint8Array {
  return Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
}

async function draftWithBundle(token: string, bundle: string) {
  const created = await callJson(
    "/v1/challenges",
    "POST",
    { slug: "deep-merge", title: "deepMerge", profile: "engineering", maxIterations: 5 },
    token,
  );
  expect(created.status).toBe(201);
  const { id } = await created.json<{ id: string }>();
  const up = await call(`/v1/challenges/${id}/bundle`, {
    method: "PUT",
    headers: { "Content-Type": "application/gzip" },
    body: fromBase64(bundle),
    token,
  });
  expect(up.status).toBe(200);
  return id;
}

describe("publishing with the real runner's challenge QA", () => {
  it(
    "refuses to publish when the reference solution fails the hidden tests (422)",
    async () => {
      const op = await seedOperator();
      const id = await draftWithBundle(op.token, env.TEST_BUNDLE_DEEP_MERGE_BROKEN);
      const res = await call(`/v1/challenges/${id}/publish`, { method: "POST", token: op.token });
      const body = await expectProblem(res, 422);
      expect(body.detail).toMatch(/QA failed/);
      const view = await (
        await call(`/v1/challenges/${id}`, { token: op.token })
      ).json<{
        status: string;
        bundle: { qa: string; qaReport: { publishable: boolean } };
      }>();
      expect(view.status).toBe("draft");
      expect(view.bundle.qa).toBe("failed");
      expect(view.bundle.qaReport.publishable).toBe(false);
      // Storage is per file, not per test: free the slug for the next test.
      await env.DB.prepare("DELETE FROM challenges WHERE id = ?").bind(id).run();
    },
    REAL_QA_TIMEOUT,
  );

  it(
    "publishes an example challenge whose reference solution passes",
    async () => {
      const op = await seedOperator();
      const id = await draftWithBundle(op.token, env.TEST_BUNDLE_DEEP_MERGE);
      const res = await call(`/v1/challenges/${id}/publish`, { method: "POST", token: op.token });
      expect(res.status).toBe(200);
      const view = await res.json<{ status: string; bundle: { qa: string } }>();
      expect(view).toMatchObject({ status: "published", bundle: { qa: "passed" } });
    },
    REAL_QA_TIMEOUT,
  );
});
