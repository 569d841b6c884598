import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import {
  bundle,
  call,
  callJson,
  createAgent,
  expectProblem,
  publishedChallenge,
  seedOperator,
  tarGz,
} from "./helpers.ts";

type ChallengeView = {
  id: string;
  status: string;
  bundle?: { qa: string; staticTests: number } | null;
  deliverables: { path: string }[];
  closedAt?: string | null;
};

async function draft(token: string, slug: string, extra: Record<string, unknown> = {}) {
  const res = await callJson(
    "/v1/challenges",
    "POST",
    { slug, title: "T", profile: "agent", family: "fog-of-war", maxIterations: 2, ...extra },
    token,
  );
  expect(res.status).toBe(201);
  return await res.json<ChallengeView>();
}

async function countBundles() {
  return (await env.ARTIFACTS.list({ prefix: "bundles/" })).objects.length;
}

function upload(id: string, token: string, body: BodyInit, type = "application/gzip") {
  return call(`/v1/challenges/${id}/bundle`, {
    method: "PUT",
    headers: { "Content-Type": type },
    body,
    token,
  });
}

describe("creating and updating challenges", () => {
  it("creates a draft with defaults", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "alpha");
    expect(ch).toMatchObject({ status: "draft", bundle: null });
  });

  it("refuses unknown fields that would set status or owner (400)", async () => {
    const op = await seedOperator();
    for (const extra of [{ status: "published" }, { createdBy: "x" }, { score: 100 }]) {
      const res = await callJson(
        "/v1/challenges",
        "POST",
        { slug: "beta", title: "T", profile: "engineering", maxIterations: 1, ...extra },
        op.token,
      );
      const body = await expectProblem(res, 400);
      expect(JSON.stringify(body.errors)).toContain(Object.keys(extra)[0]);
    }
  });

  it("refuses an unknown profile and family (400)", async () => {
    const op = await seedOperator();
    const res = await callJson(
      "/v1/challenges",
      "POST",
      { slug: "gamma", title: "T", profile: "vibes", family: "nope", maxIterations: 1 },
      op.token,
    );
    const body = await expectProblem(res, 400);
    expect(JSON.stringify(body.errors)).toContain("profile");
    expect(JSON.stringify(body.errors)).toContain("family");
  });

  it("refuses custom weights that break a rule, naming it (422)", async () => {
    const op = await seedOperator();
    const res = await callJson(
      "/v1/challenges",
      "POST",
      {
        slug: "delta",
        title: "T",
        profile: "agent",
        maxIterations: 1,
        customWeights: { objective: 25, process: 20, strategy: 20, recovery: 20, efficiency: 10 },
      },
      op.token,
    );
    const body = await expectProblem(res, 422);
    expect(body.rule).toBe("objective-minimum");
    expect(body.detail).toMatch(/objective/);
  });

  it("accepts valid custom weights", async () => {
    const op = await seedOperator();
    const weights = { objective: 40, process: 15, strategy: 15, recovery: 15, efficiency: 10 };
    const ch = await draft(op.token, "epsilon", { customWeights: weights });
    expect((ch as unknown as { customWeights: unknown }).customWeights).toEqual(weights);
  });

  it("answers 409 for a duplicate slug", async () => {
    const op = await seedOperator();
    await draft(op.token, "zeta");
    const res = await callJson(
      "/v1/challenges",
      "POST",
      { slug: "zeta", title: "T", profile: "engineering", maxIterations: 1 },
      op.token,
    );
    await expectProblem(res, 409);
  });

  it("updates a draft and refuses to change a published challenge", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "eta");
    const ok = await callJson(`/v1/challenges/${ch.id}`, "PATCH", { maxIterations: 9 }, op.token);
    expect(ok.status).toBe(200);
    expect((await ok.json<{ maxIterations: number }>()).maxIterations).toBe(9);
    const bad = await callJson(
      `/v1/challenges/${ch.id}`,
      "PATCH",
      { customWeights: { objective: 20, process: 20, strategy: 20, recovery: 20, efficiency: 20 } },
      op.token,
    );
    expect((await expectProblem(bad, 422)).rule).toBeDefined();
    const id = await publishedChallenge(op.token, "theta");
    await expectProblem(
      await callJson(`/v1/challenges/${id}`, "PATCH", { title: "x" }, op.token),
      409,
    );
  });

  it("refuses an empty update (400)", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "iota");
    await expectProblem(await callJson(`/v1/challenges/${ch.id}`, "PATCH", {}, op.token), 400);
  });
});

describe("bundles, QA and publishing", () => {
  it("stores a valid bundle under its SHA-256 and shows its summary to operators", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "kappa");
    const res = await upload(ch.id, op.token, await bundle("kappa"));
    expect(res.status).toBe(200);
    const view = await res.json<ChallengeView & { bundle: { sha256: string } }>();
    expect(view.bundle).toMatchObject({ qa: "not-run", staticTests: 1 });
    expect(await env.ARTIFACTS.head(`bundles/${view.bundle.sha256}`)).not.toBeNull();
    expect(view.deliverables).toEqual([
      { path: "NOTES.md", description: "what you did and why", required: true },
    ]);
  });

  it("refuses a bundle that is not gzip (415) and stores nothing", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "lambda");
    const before = await countBundles();
    await expectProblem(await upload(ch.id, op.token, "plain text"), 415);
    await expectProblem(await upload(ch.id, op.token, await bundle("lambda"), "text/plain"), 415);
    expect(await countBundles()).toBe(before);
  });

  it("refuses an oversized bundle (413) before reading it", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "mu");
    const res = await call(`/v1/challenges/${ch.id}/bundle`, {
      method: "PUT",
      headers: { "Content-Type": "application/gzip", "Content-Length": String(60 * 1024 * 1024) },
      body: new Uint8Array(10),
      token: op.token,
    });
    expect([413]).toContain(res.status);
  });

  it("refuses a bundle whose manifest is missing or invalid (422), naming the field", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "nu");
    const before = await countBundles();
    const none = await upload(ch.id, op.token, await tarGz({ "README.md": "hi" }));
    expect((await expectProblem(none, 422)).detail).toMatch(/challenge\.json/);
    const bad = await upload(
      ch.id,
      op.token,
      await tarGz({ "challenge.json": JSON.stringify({ schemaVersion: 1, id: "nu" }) }),
    );
    const body = await expectProblem(bad, 422);
    expect(JSON.stringify(body.errors)).toContain("runtime");
    const other = await upload(ch.id, op.token, await bundle("not-nu"));
    expect((await expectProblem(other, 422)).detail).toMatch(/slug/);
    expect(await countBundles()).toBe(before);
  });

  it("refuses to publish without a bundle (409)", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "xi");
    await expectProblem(
      await call(`/v1/challenges/${ch.id}/publish`, { method: "POST", token: op.token }),
      409,
    );
  });

  it("keeps a challenge in draft when the runner's QA fails (422) and records the report", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "omicron");
    await upload(ch.id, op.token, await bundle("omicron", { QA_SHOULD_FAIL: "1" }));
    const res = await call(`/v1/challenges/${ch.id}/publish`, { method: "POST", token: op.token });
    const body = await expectProblem(res, 422);
    expect(body.detail).toMatch(/reference solution fails/);
    const view = await (
      await call(`/v1/challenges/${ch.id}`, { token: op.token })
    ).json<ChallengeView>();
    expect(view.status).toBe("draft");
    expect(view.bundle?.qa).toBe("failed");
  });

  it("treats a bundle the runner refuses as a failed QA (422) with the runner's detail", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "pi-refused");
    await upload(ch.id, op.token, await bundle("pi-refused", { RUNNER_REFUSES: "1" }));
    const res = await call(`/v1/challenges/${ch.id}/publish`, { method: "POST", token: op.token });
    const body = await expectProblem(res, 422);
    expect(body.detail).toMatch(/missing\.test\.js/);
  });

  it("answers 503 when the runner is down, and does not publish", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "pi");
    await upload(ch.id, op.token, await bundle("pi", { RUNNER_CRASH: "1" }));
    const res = await call(`/v1/challenges/${ch.id}/publish`, { method: "POST", token: op.token });
    await expectProblem(res, 503);
    expect(res.headers.get("Retry-After")).not.toBeNull();
    const view = await (
      await call(`/v1/challenges/${ch.id}`, { token: op.token })
    ).json<ChallengeView>();
    expect(view.status).toBe("draft");
  });

  it("publishes after QA passes, then closes", async () => {
    const op = await seedOperator();
    const id = await publishedChallenge(op.token, "rho");
    const view = await (
      await call(`/v1/challenges/${id}`, { token: op.token })
    ).json<ChallengeView>();
    expect(view).toMatchObject({ status: "published", bundle: { qa: "passed" } });
    await expectProblem(
      await call(`/v1/challenges/${id}/publish`, { method: "POST", token: op.token }),
      409,
    );
    const closed = await call(`/v1/challenges/${id}/close`, { method: "POST", token: op.token });
    const closedView = await closed.json<ChallengeView>();
    expect(closedView.status).toBe("closed");
    // Closing is idempotent: a repeat answers the challenge as it was closed.
    const again = await call(`/v1/challenges/${id}/close`, { method: "POST", token: op.token });
    expect(again.status).toBe(200);
    expect((await again.json<ChallengeView>()).closedAt).toBe(closedView.closedAt);
  });

  it("replacing a draft's bundle removes the old object and resets QA", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "sigma");
    const first = await (
      await upload(ch.id, op.token, await bundle("sigma"))
    ).json<{
      bundle: { sha256: string };
    }>();
    const second = await (
      await upload(ch.id, op.token, await bundle("sigma", { "extra.txt": "v2" }))
    ).json<{ bundle: { sha256: string; qa: string } }>();
    expect(second.bundle.sha256).not.toBe(first.bundle.sha256);
    expect(second.bundle.qa).toBe("not-run");
    expect(await env.ARTIFACTS.head(`bundles/${first.bundle.sha256}`)).toBeNull();
    expect(await env.ARTIFACTS.head(`bundles/${second.bundle.sha256}`)).not.toBeNull();
  });

  it("keeps the previous bundle and stores nothing new when the R2 put fails (503)", async () => {
    const op = await seedOperator();
    const ch = await draft(op.token, "r2-down");
    const first = await (
      await upload(ch.id, op.token, await bundle("r2-down"))
    ).json<{ bundle: { sha256: string } }>();
    const before = await countBundles();
    const put = vi.spyOn(env.ARTIFACTS, "put").mockRejectedValueOnce(new Error("R2 down"));
    const res = await upload(ch.id, op.token, await bundle("r2-down", { "extra.txt": "v2" }));
    put.mockRestore();
    const problem = await expectProblem(res, 503);
    expect(problem.detail).toContain("artifact store");
    expect(await countBundles()).toBe(before);
    const view = await (
      await call(`/v1/challenges/${ch.id}`, { token: op.token })
    ).json<{ bundle: { sha256: string; qa: string } }>();
    expect(view.bundle.sha256).toBe(first.bundle.sha256);
    expect(await env.ARTIFACTS.head(`bundles/${first.bundle.sha256}`)).not.toBeNull();
    // Once R2 is back the same upload goes through.
    expect(
      (await upload(ch.id, op.token, await bundle("r2-down", { "extra.txt": "v2" }))).status,
    ).toBe(200);
  });
});

describe("what agents see", () => {
  it("hides drafts (404) and lists only published and closed challenges", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    const d = await draft(op.token, "tau");
    const id = await publishedChallenge(op.token, "upsilon");
    await expectProblem(await call(`/v1/challenges/${d.id}`, { token: agent.token }), 404);
    const list = await (
      await call("/v1/challenges", { token: agent.token })
    ).json<{
      challenges: { id: string }[];
    }>();
    const ids = list.challenges.map((c) => c.id);
    expect(ids).toContain(id);
    expect(ids).not.toContain(d.id);
  });

  it("never shows the hidden tests, the bundle or the QA report to an agent", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    const id = await publishedChallenge(op.token, "phi");
    for (const path of [`/v1/challenges/${id}`, "/v1/challenges", `/v1/challenges/phi`]) {
      const text = await (await call(path, { token: agent.token })).text();
      expect(text).toContain("phi");
      expect(text).not.toContain("fizz.basic");
      expect(text).not.toContain("SECRET_HIDDEN_TEST_BODY");
      expect(text).not.toContain('"bundle"');
    }
  });

  it("enters a challenge once: 201, then 200 with the original time", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    const id = await publishedChallenge(op.token, "chi");
    const first = await call(`/v1/challenges/${id}/entries`, {
      method: "POST",
      token: agent.token,
    });
    expect(first.status).toBe(201);
    const a = await first.json<{ enteredAt: string }>();
    const again = await call(`/v1/challenges/${id}/entries`, {
      method: "POST",
      token: agent.token,
    });
    expect(again.status).toBe(200);
    expect((await again.json<{ enteredAt: string }>()).enteredAt).toBe(a.enteredAt);
  });

  it("refuses entry to a draft (404) or a closed challenge (409), and to operators (403)", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    const d = await draft(op.token, "psi");
    await expectProblem(
      await call(`/v1/challenges/${d.id}/entries`, { method: "POST", token: agent.token }),
      404,
    );
    const id = await publishedChallenge(op.token, "omega");
    await call(`/v1/challenges/${id}/close`, { method: "POST", token: op.token });
    await expectProblem(
      await call(`/v1/challenges/${id}/entries`, { method: "POST", token: agent.token }),
      409,
    );
    await expectProblem(
      await call(`/v1/challenges/${id}/entries`, { method: "POST", token: op.token }),
      403,
    );
  });
});

describe("operators and each other's challenges", () => {
  it("hides another operator's draft and refuses every change to it (404)", async () => {
    const a = await seedOperator("a");
    const b = await seedOperator("b");
    const ch = await draft(a.token, "owned-draft");
    await expectProblem(await call(`/v1/challenges/${ch.id}`, { token: b.token }), 404);
    await expectProblem(
      await callJson(`/v1/challenges/${ch.id}`, "PATCH", { title: "mine now" }, b.token),
      404,
    );
    await expectProblem(await upload(ch.id, b.token, await bundle("owned-draft")), 404);
    await expectProblem(
      await call(`/v1/challenges/${ch.id}/publish`, { method: "POST", token: b.token }),
      404,
    );
    const list = await (
      await call("/v1/challenges", { token: b.token })
    ).json<{
      challenges: { id: string }[];
    }>();
    expect(list.challenges.map((c) => c.id)).not.toContain(ch.id);
  });

  it("shows another operator's published challenge as agents see it, and refuses to close it", async () => {
    const a = await seedOperator("a");
    const b = await seedOperator("b");
    const id = await publishedChallenge(a.token, "owned-published");
    const text = await (await call(`/v1/challenges/${id}`, { token: b.token })).text();
    expect(text).toContain("owned-published");
    expect(text).not.toContain('"bundle"');
    await expectProblem(
      await call(`/v1/challenges/${id}/close`, { method: "POST", token: b.token }),
      404,
    );
  });
});
