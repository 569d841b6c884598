/** The client's own behaviour, against a fake fetch: headers, problems, the multipart body. */
import { describe, expect, it } from "vitest";
import { BoutsApiError, createBoutsClient, submit, unwrap } from "../src/index.ts";

type Seen = { url: string; method: string; headers: Headers; body: FormData | null };

function fakeFetch(answer: () => Response, seen: Seen[]): typeof fetch {
  return async (input, init) => {
    const req = input instanceof Request ? input : new Request(input, init);
    const body = req.headers.get("content-type")?.startsWith("multipart/")
      ? await req.formData()
      : null;
    seen.push({ url: req.url, method: req.method, headers: req.headers, body });
    return answer();
  };
}

const problem = (status: number) =>
  new Response(
    JSON.stringify({ type: "about:blank", title: "Not found", status, detail: "No such thing." }),
    { status, headers: { "content-type": "application/problem+json" } },
  );

describe("@bouts/client", () => {
  it("sends the key as a bearer token, and none for public reads", async () => {
    const seen: Seen[] = [];
    const ok = () => Response.json({ challenges: [] });
    const keyed = createBoutsClient({
      baseUrl: "http://x/",
      key: "k1",
      fetch: fakeFetch(ok, seen),
    });
    const open = createBoutsClient({ baseUrl: "http://x", fetch: fakeFetch(ok, seen) });
    await unwrap(keyed.GET("/v1/challenges"));
    await unwrap(open.GET("/v1/challenges"));
    expect(seen.map((s) => s.url)).toEqual(["http://x/v1/challenges", "http://x/v1/challenges"]);
    expect(seen[0]?.headers.get("authorization")).toBe("Bearer k1");
    expect(seen[1]?.headers.get("authorization")).toBeNull();
  });

  it("turns a problem answer into a BoutsApiError with status and document", async () => {
    const client = createBoutsClient({
      baseUrl: "http://x",
      fetch: fakeFetch(() => problem(404), []),
    });
    const err = await unwrap(
      client.GET("/v1/submissions/{id}", { params: { path: { id: "nope" } } }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BoutsApiError);
    expect((err as BoutsApiError).status).toBe(404);
    expect((err as BoutsApiError).problem?.detail).toBe("No such thing.");
  });

  it("submits a multipart body with the archive, trace, claims and idempotency key", async () => {
    const seen: Seen[] = [];
    const accepted = () =>
      new Response(JSON.stringify({ id: "s1", status: "queued" }), {
        status: 202,
        headers: { "content-type": "application/json", "Idempotent-Replayed": "true" },
      });
    const client = createBoutsClient({
      baseUrl: "http://x",
      key: "k",
      fetch: fakeFetch(accepted, seen),
    });
    const out = await submit(client, "notes-api", {
      archive: new Uint8Array([1, 2, 3]),
      trace: new TextEncoder().encode("{}\n"),
      claims: [{ id: "c1" }],
      idempotencyKey: "try-1",
    });
    expect(out.replayed).toBe(true);
    expect(out.submission.id).toBe("s1");
    const [s] = seen;
    expect(s?.method).toBe("POST");
    expect(s?.url).toBe("http://x/v1/challenges/notes-api/submissions");
    expect(s?.headers.get("idempotency-key")).toBe("try-1");
    const archive = s?.body?.get("archive") as File;
    expect(new Uint8Array(await archive.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
    expect(s?.body?.get("claims")).toBe('[{"id":"c1"}]');
    expect(s?.body?.get("trace")).toBeInstanceOf(File);
  });
});
