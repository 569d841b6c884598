/**
 * The webhook routes through the platform Worker's fetch: registration (secret once, SSRF
 * rules as 422 problems), listing, authorization (another agent's endpoint is a 404 exactly
 * like a missing one) and deletion.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, callJson, expectProblem, register, seedAgents, type Agent } from "./helpers.ts";

let a: Agent;
let b: Agent;
beforeAll(async () => {
  ({ a, b } = await seedAgents());
});

describe("registration", () => {
  it("answers the whsec_ secret once and never in the listing", async () => {
    const created = await register(a.token, "/routes/once", ["submission.scored"]);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.url).toBe("http://127.0.0.1:9797/routes/once");
    const res = await call("/v1/webhooks", { token: a.token });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(created.secret);
    const { endpoints } = JSON.parse(text) as { endpoints: { id: string; enabled: boolean }[] };
    expect(endpoints.find((e) => e.id === created.id)?.enabled).toBe(true);
  });

  it.each([
    ["http://10.0.0.1/hook", "private"],
    ["https://169.254.169.254/latest/meta-data", "metadata"],
    ["https://user:pw@hooks.example.com/x", "credentials"],
    ["http://127.0.0.2/hook", "loopback"],
    ["ftp://hooks.example.com/x", "scheme"],
    ["https://2130706433/x", "numeric-host-form"],
    ["https://[::ffff:7f00:1]/x", "ipv4-mapped"],
    ["https://hooks.example.com:8443/x", "port"],
    ["https://100.64.0.1/x", "cgnat"],
  ])("refuses %s with a 422 problem naming rule %s", async (url, rule) => {
    const res = await callJson(
      "/v1/webhooks",
      "POST",
      { url, eventTypes: ["submission.scored"] },
      a.token,
    );
    const problem = await expectProblem(res, 422);
    expect(problem.rule).toBe(rule);
    expect(problem.type).toBe("urn:bouts:problem:invalid-target");
  });

  it("refuses an unknown event type as a 400 problem", async () => {
    const res = await callJson(
      "/v1/webhooks",
      "POST",
      { url: "http://127.0.0.1/x", eventTypes: ["submission.deleted"] },
      a.token,
    );
    await expectProblem(res, 400);
  });

  // The contract test's coverage phase leaves this operation out (e2e/contract/schemathesis.toml:
  // its URL pattern makes Schemathesis' boundary generation take minutes): its boundaries are
  // checked here, against the same document.
  it("holds the body to the bounds the document states, at each edge", async () => {
    const prefix = "http://127.0.0.1:9797/";
    const urlOf = (length: number) => prefix + "a".repeat(length - prefix.length);
    const post = (body: unknown) => callJson("/v1/webhooks", "POST", body, a.token);
    const ok = await post({ url: urlOf(2048), eventTypes: ["submission.scored"] });
    expect(ok.status).toBe(201);
    const created = await ok.json<{ id: string; url: string }>();
    expect(created.url).toHaveLength(2048);
    expect(
      (await call(`/v1/webhooks/${created.id}`, { token: a.token, method: "DELETE" })).status,
    ).toBe(204);
    for (const body of [
      { url: urlOf(2049), eventTypes: ["submission.scored"] },
      { url: "", eventTypes: ["submission.scored"] },
      { url: 42, eventTypes: ["submission.scored"] },
      { url: `${prefix}a b`, eventTypes: ["submission.scored"] },
      { eventTypes: ["submission.scored"] },
      { url: urlOf(40) },
      { url: urlOf(40), eventTypes: [] },
      { url: urlOf(40), eventTypes: "submission.scored" },
      { url: urlOf(40), eventTypes: ["submission.scored", "submission.scored"] },
      { url: urlOf(40), eventTypes: ["submission.scored"], secret: "mine" },
      [{ url: urlOf(40), eventTypes: ["submission.scored"] }],
    ])
      await expectProblem(await post(body), 400);
    const document = await (
      await call("/openapi.json")
    ).json<{
      components: { schemas: { RegisterWebhookBody: Record<string, unknown> } };
    }>();
    expect(document.components.schemas.RegisterWebhookBody).toMatchObject({
      required: ["url", "eventTypes"],
      additionalProperties: false,
      properties: {
        url: { minLength: 1, maxLength: 2048, format: "uri" },
        eventTypes: { minItems: 1, uniqueItems: true },
      },
    });
  });

  it("needs an API key", async () => {
    await expectProblem(await call("/v1/webhooks"), 401);
  });
});

describe("authorization", () => {
  it("answers another agent's endpoint exactly like a missing one", async () => {
    const mine = await register(a.token, "/routes/mine");
    const routes: [string, string][] = [
      ["DELETE", ""],
      ["POST", "/rotate"],
      ["POST", "/test"],
      ["GET", "/deliveries"],
      ["POST", "/enable"],
      ["POST", "/deliveries/msg_abc/redeliver"],
    ];
    for (const [method, suffix] of routes) {
      const theirs = await expectProblem(
        await call(`/v1/webhooks/${mine.id}${suffix}`, { method, token: b.token }),
        404,
      );
      const missing = await expectProblem(
        await call(`/v1/webhooks/wh_missing${suffix}`, { method, token: b.token }),
        404,
      );
      expect(theirs).toEqual(missing);
    }
    const listed = await (
      await call("/v1/webhooks", { token: b.token })
    ).json<{
      endpoints: unknown[];
    }>();
    expect(listed.endpoints).toEqual([]);
  });

  it("deletes the caller's endpoint", async () => {
    const mine = await register(a.token, "/routes/deleted");
    const res = await call(`/v1/webhooks/${mine.id}`, { method: "DELETE", token: a.token });
    expect(res.status).toBe(204);
    await expectProblem(await call(`/v1/webhooks/${mine.id}/deliveries`, { token: a.token }), 404);
  });
});
