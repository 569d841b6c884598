/**
 * Test helpers for the ingest routes: calls through the platform Worker's fetch, an operator
 * seeded straight into D1 (as `npm start` does), agents and challenges made through the API,
 * and tiny .tar.gz / .zip builders.
 */
import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { updateCrc32 } from "@bouts/archive";
import { createDb, insertApiKey, insertOperator, mintApiKey } from "@bouts/db";

export const ORIGIN = "http://ingest.test";

/** Sends a request through the Worker's fetch handler. */
export function call(path: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }));
}

/** Sends JSON. */
export function callJson(path: string, method: string, body: unknown, token?: string) {
  return call(path, {
    method,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    ...(token ? { token } : {}),
  });
}

/** Reads a problem+json answer and checks its shape. */
export async function expectProblem(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  const body = await res.json<{ status: number; detail: string; [k: string]: unknown }>();
  expect(body.status).toBe(status);
  expect(body.detail.length).toBeGreaterThan(0);
  return body;
}

/** Inserts an operator and its key directly, like the local seeding path. */
export async function seedOperator(name = "ops"): Promise<{ id: string; token: string }> {
  const db = createDb(env.DB);
  const id = crypto.randomUUID();
  const now = Date.now();
  await insertOperator(db, { id, name, createdAt: now });
  const key = await mintApiKey();
  await insertApiKey(db, {
    id: key.id,
    role: "operator",
    agentId: null,
    operatorId: id,
    secretHash: key.secretHash,
    label: "test",
    createdAt: now,
    revokedAt: null,
  });
  return { id, token: key.token };
}

/** Registers an agent through the API; returns its id, token and key id. */
export async function createAgent(opToken: string, name = "agent") {
  const res = await callJson("/v1/agents", "POST", { name }, opToken);
  expect(res.status).toBe(201);
  const body = await res.json<{ agent: { id: string }; key: { id: string; key: string } }>();
  return { id: body.agent.id, token: body.key.key, keyId: body.key.id };
}

// ─── Archives ───

const enc = new TextEncoder();

/** A ustar archive of the given files (text as UTF-8, or raw bytes), gzip-compressed. */
export async function tarGz(files: Record<string, string | Uint8Array>): Promise<Uint8Array> {
  const blocks: Uint8Array[] = [];
  for (const [name, content] of Object.entries(files)) {
    const data = typeof content === "string" ? enc.encode(content) : content;
    const h = new Uint8Array(512);
    const put = (at: number, s: string) => h.set(enc.encode(s), at);
    put(0, name);
    put(100, "0000644\0");
    put(108, "0000000\0");
    put(116, "0000000\0");
    put(124, data.length.toString(8).padStart(11, "0") + "\0");
    put(136, "00000000000\0");
    put(148, "        ");
    put(156, "0");
    put(257, "ustar\0");
    put(263, "00");
    const sum = h.reduce((a, b) => a + b, 0);
    put(148, sum.toString(8).padStart(6, "0") + "\0 ");
    blocks.push(h, data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  blocks.push(new Uint8Array(1024));
  const tar = new Blob(blocks);
  const gz = tar.stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(gz).arrayBuffer());
}

/** A zip of the given files (text as UTF-8, or raw bytes), stored, with real CRCs. */
export function zip(files: Record<string, string | Uint8Array>): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  const header = (size: number, fill: (v: DataView) => void) => {
    const b = new Uint8Array(size);
    fill(new DataView(b.buffer));
    return b;
  };
  for (const [name, content] of Object.entries(files)) {
    const n = enc.encode(name);
    const data = typeof content === "string" ? enc.encode(content) : content;
    const crc = updateCrc32(0, data);
    const common = (v: DataView, at: number) => {
      v.setUint16(at, 20, true); // version needed
      v.setUint16(at + 2, 0x800, true); // UTF-8 names
      v.setUint16(at + 4, 0, true); // stored
      v.setUint32(at + 6, 0, true); // time, date
      v.setUint32(at + 10, crc, true);
      v.setUint32(at + 14, data.length, true);
      v.setUint32(at + 18, data.length, true);
      v.setUint16(at + 22, n.length, true);
      v.setUint16(at + 24, 0, true);
    };
    const local = header(30, (v) => {
      v.setUint32(0, 0x04034b50, true);
      common(v, 4);
    });
    central.push(
      header(46, (v) => {
        v.setUint32(0, 0x02014b50, true);
        v.setUint16(4, 0x0314, true); // made by: Unix
        common(v, 6);
        v.setUint32(38, 0o100644 << 16, true);
        v.setUint32(42, offset, true);
      }),
      n,
    );
    parts.push(local, n, data);
    offset += local.length + n.length + data.length;
  }
  const dirSize = central.reduce((a, b) => a + b.length, 0);
  const count = Object.keys(files).length;
  const end = header(22, (v) => {
    v.setUint32(0, 0x06054b50, true);
    v.setUint16(8, count, true);
    v.setUint16(10, count, true);
    v.setUint32(12, dirSize, true);
    v.setUint32(16, offset, true);
  });
  const all = [...parts, ...central, end];
  const out = new Uint8Array(all.reduce((a, b) => a + b.length, 0));
  let at = 0;
  for (const b of all) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/** A valid challenge manifest for `slug`. */
export function manifest(slug: string, extra: Record<string, unknown> = {}) {
  return {
    schemaVersion: 1,
    id: slug,
    title: `Challenge ${slug}`,
    runtime: "node22",
    testFramework: "node:test",
    staticTests: [
      {
        id: "fizz.basic",
        file: "static/fizz.test.js",
        name: "fizz basic",
        category: "functionality",
      },
    ],
    deliverables: [{ path: "NOTES.md", description: "what you did and why" }],
    ...extra,
  };
}

/**
 * A bundle (.tar.gz) for `slug`; `extraFiles` may carry the fake runner's markers, and
 * `manifestExtra` sets manifest fields (`dependencies`, `runtime`, …).
 */
export function bundle(
  slug: string,
  extraFiles: Record<string, string> = {},
  manifestExtra: Record<string, unknown> = {},
) {
  return tarGz({
    "challenge.json": JSON.stringify(manifest(slug, manifestExtra)),
    "tests/static/fizz.test.js": "// hidden test: SECRET_HIDDEN_TEST_BODY\n",
    ...extraFiles,
  });
}

/** Creates, uploads and publishes a challenge (its manifest with `manifestExtra`); returns its id. */
export async function publishedChallenge(
  opToken: string,
  slug: string,
  overrides: Record<string, unknown> = {},
  manifestExtra: Record<string, unknown> = {},
): Promise<string> {
  const created = await callJson(
    "/v1/challenges",
    "POST",
    { slug, title: `Title ${slug}`, profile: "engineering", maxIterations: 3, ...overrides },
    opToken,
  );
  expect(created.status).toBe(201);
  const { id } = await created.json<{ id: string }>();
  const up = await call(`/v1/challenges/${id}/bundle`, {
    method: "PUT",
    headers: { "Content-Type": "application/gzip" },
    body: await bundle(slug, {}, manifestExtra),
    token: opToken,
  });
  expect(up.status).toBe(200);
  const pub = await call(`/v1/challenges/${id}/publish`, { method: "POST", token: opToken });
  expect(pub.status).toBe(200);
  return id;
}

/** A multipart submission body. */
export function submissionForm(
  archive: Uint8Array,
  opts: { claims?: string; trace?: Uint8Array; extra?: Record<string, string> } = {},
): FormData {
  const form = new FormData();
  form.set("archive", new File([archive], "solution.tar.gz"));
  if (opts.claims !== undefined) form.set("claims", opts.claims);
  if (opts.trace) form.set("trace", new File([opts.trace], "trace.jsonl"));
  for (const [k, v] of Object.entries(opts.extra ?? {})) form.set(k, v);
  return form;
}

/** Submits to a challenge. */
export function submit(
  challengeId: string,
  token: string,
  form: FormData,
  headers: Record<string, string> = {},
) {
  return call(`/v1/challenges/${challengeId}/submissions`, {
    method: "POST",
    body: form,
    headers,
    token,
  });
}
