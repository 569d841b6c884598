/**
 * A body that stops arriving is answered 408 within the deadline, whatever the route does with
 * it; a body that keeps arriving is passed through byte for byte.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { createApp, createRouter } from "../src/app.ts";
import { declareBodyTimeout, withBodyDeadline } from "../src/body-deadline.ts";
import { json, problems } from "../src/openapi.ts";

const DEADLINE = { idleMs: 150, totalMs: 1_000 };
const enc = new TextEncoder();

/** A body that sends `chunks` with `gapMs` between them, then stays open unless `end`. */
function trickle(chunks: string[], gapMs: number, end: boolean): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i < chunks.length) {
        if (i > 0) await new Promise((r) => setTimeout(r, gapMs));
        controller.enqueue(enc.encode(chunks[i++]));
        return;
      }
      if (end) controller.close();
      else await new Promise(() => undefined); // the client that never sends the rest
    },
  });
}

function buildApp() {
  const routes = createRouter();
  routes.post("/raw", async (c) => {
    const reader = c.req.raw.body!.getReader();
    let n = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      n += value.byteLength;
    }
    return c.json({ bytes: n });
  });
  routes.post("/text", async (c) => c.json({ text: await c.req.text() }));
  routes.post("/form", async (c) => c.json({ fields: [...(await c.req.formData()).keys()] }));
  routes.openapi(
    createRoute({
      method: "post",
      path: "/json",
      request: { body: { ...json(z.object({ a: z.string() })), required: true } },
      responses: { 200: json(z.object({ a: z.string() })), ...problems(400) },
    }),
    (c) => c.json({ a: c.req.valid("json").a }, 200),
  );
  routes.get("/plain", (c) => c.json({ ok: true }));
  return createApp({ bodyDeadline: DEADLINE }).route("/v1", routes);
}

async function post(path: string, body: ReadableStream<Uint8Array>, type = "text/plain") {
  const started = Date.now();
  const res = await buildApp().request(path, {
    method: "POST",
    headers: { "Content-Type": type, "Content-Length": "100000" },
    body,
    duplex: "half",
  } as RequestInit);
  return { res, ms: Date.now() - started };
}

describe("the request-body deadline", () => {
  for (const route of ["/v1/raw", "/v1/text", "/v1/form", "/v1/json"]) {
    it(`answers 408 problem+json when the body stops short (${route})`, async () => {
      const type =
        route === "/v1/form"
          ? "multipart/form-data; boundary=x"
          : route === "/v1/json"
            ? "application/json"
            : "text/plain";
      const { res, ms } = await post(route, trickle(['{"a":', '"b'], 20, false), type);
      expect(res.status).toBe(408);
      expect(res.headers.get("Content-Type")).toBe("application/problem+json");
      expect(res.headers.get("Connection")).toBe("close");
      const problem = (await res.json()) as { type: string; detail: string };
      expect(problem.type).toBe("urn:bouts:problem:request-timeout");
      expect(problem.detail).toContain("Content-Length");
      expect(ms).toBeLessThan(DEADLINE.totalMs);
    });
  }

  it("passes a slow body that keeps arriving through byte for byte", async () => {
    // Six pauses of 100 ms: each under the idle bound, together past it.
    const chunks = ["x".repeat(1000), ..."abcdef".split("").map((c) => c.repeat(10))];
    const { res } = await post("/v1/raw", trickle(chunks, 100, true));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ bytes: 1060 });
  });

  it("answers 408 when a body that keeps trickling passes the total bound", async () => {
    const chunks = Array.from({ length: 20 }, () => "y");
    const { res, ms } = await post("/v1/raw", trickle(chunks, 100, true));
    expect(res.status).toBe(408);
    expect(((await res.json()) as { detail: string }).detail).toContain("took longer than 1 s");
    expect(ms).toBeGreaterThanOrEqual(DEADLINE.totalMs - 50);
  });

  it("leaves a request without a body alone", async () => {
    const res = await buildApp().request("/v1/plain");
    expect(res.status).toBe(200);
  });

  it("ends its timers with the body (no 408 after a complete body)", async () => {
    let fired = false;
    const body = withBodyDeadline(trickle(["done"], 0, true), DEADLINE, () => {
      fired = true;
    });
    expect(await new Response(body).text()).toBe("done");
    await new Promise((r) => setTimeout(r, DEADLINE.idleMs * 2));
    expect(fired).toBe(false);
  });

  it("declares the 408 on every operation that takes a body, and only there", () => {
    const post = { requestBody: {}, responses: { "200": {} } };
    const get = { responses: {} };
    declareBodyTimeout({ paths: { "/a": { post, get } } });
    expect(Object.keys(post.responses)).toContain("408");
    expect(Object.keys(get.responses)).not.toContain("408");
  });
});
