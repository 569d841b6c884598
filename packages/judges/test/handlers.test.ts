/**
 * Context handlers (Hono-style) and the do-nothing rule (docs/design.md §33): a server whose
 * every handler answers from the request's path, URL, method or headers alone does nothing,
 * however its handlers are written (expression or block bodies, inline or by name, behind a
 * helper that itself does nothing, in a factory or at module level). Honest apps written in
 * unusual shapes keep their credit, and Node `(req, res)` apps are judged as before.
 */
import { describe, expect, it } from "vitest";
import { measureCode, type SourceFile } from "../src/index.ts";
import { gradeCodeQuality } from "./grade.ts";

const app = (content: string): SourceFile[] => [{ path: "app.mjs", content }];
const HEADER = `import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
`;
const RETURN = `  return { server: createAdaptorServer({ fetch: app.fetch }), db: null };`;
const doNothing = (files: SourceFile[]) => measureCode(files).doNothing;

describe("Hono stubs do nothing", () => {
  it("sees a stub that hides behind helpers that themselves do nothing", async () => {
    const files = app(`${HEADER}
/** The status a refused request gets. */
function statusFor(path) {
  return path.startsWith("/links") ? 401 : 400;
}

const refuse = (ctx, status) => ctx.json({ error: "invalid request" }, status);

/** Builds the bookmarks service. */
export function createApp() {
  const app = new Hono();
  app.all("*", (c) => refuse(c, statusFor(c.req.path)));
${RETURN}
}
`);
    expect(doNothing(files)).toBe(true);
    expect(await gradeCodeQuality(files)).toBe(0);
  });

  it("sees one handler per route, each answering a constant", async () => {
    const files = app(`${HEADER}
/** Builds the bookmarks service. */
export function createApp() {
  const app = new Hono();
  app.post("/register", (c) => c.json({ error: "invalid" }, 400));
  app.post("/login", (c) => c.json({ error: "bad credentials" }, 401));
  app.get("/links", (c) => c.json([], 401));
  app.get("/links/:id", async (c) => {
    return c.notFound();
  });
  app
    .delete("/links/:id", (c) => c.body(null, 401))
    .put("/links/:id", (ctx) => new Response(null, { status: 401 }));
${RETURN}
}
`);
    const m = measureCode(files);
    expect(m.entryPoints).toBe(6);
    expect(m.stubEntryPoints).toBe(6);
    expect(m.doNothing).toBe(true);
    expect(await gradeCodeQuality(files)).toBe(0);
  });

  it("sees a handler that reads the path and headers only, in any shape", () => {
    const byPath = app(`${HEADER}
export function createApp() {
  const app = new Hono();
  app.use(async (context) => {
    const path = context.req.path;
    if (path === "/register" || path === "/login") return context.json({ error: "invalid" }, 400);
    context.status(context.req.header("authorization") ? 403 : 401);
    return context.text("refused");
  });
${RETURN}
}
`);
    expect(doNothing(byPath)).toBe(true);
    // Named, registered by reference, on a module-level app the factory hands out.
    const byName = app(`${HEADER}
const app = new Hono();
const deny = (c) => c.json({ error: "invalid" }, c.req.method === "GET" ? 401 : 400);
app.all("*", deny);

export function createApp() {
  return { server: createAdaptorServer({ fetch: app.fetch }), db: null };
}
`);
    expect(doNothing(byName)).toBe(true);
    // Middleware in name only: it takes next and never calls it.
    const neverNext = app(`${HEADER}
export function createApp() {
  const app = new Hono();
  app.use("*", async (c, next) => c.json({ error: "invalid" }, 400));
${RETURN}
}
`);
    expect(doNothing(neverNext)).toBe(true);
  });

  it("counts a factory through its handlers, and middleware as no entry point", () => {
    const m = measureCode(
      app(`${HEADER}
export function createApp() {
  const app = new Hono();
  app.use(async (c, next) => {
    c.header("x-frame-options", "DENY");
    await next();
  });
  app.all("*", (c) => c.json({ error: "invalid" }, 400));
${RETURN}
}
`),
    );
    expect([m.entryPoints, m.stubEntryPoints, m.doNothing]).toEqual([1, 1, true]);
  });

  it("does not take a callback named c inside a stub for a handler of its own", () => {
    const m = measureCode(
      app(`${HEADER}
export function createApp() {
  const app = new Hono();
  app.get("/tags", (c) => c.json({ error: "no" }, [1].map((c) => c.size).length ? 400 : 401));
${RETURN}
}
`),
    );
    expect([m.entryPoints, m.doNothing]).toEqual([1, true]);
  });
});

describe("honest Hono apps keep their credit", () => {
  it("leaves expression-bodied handlers that call a store alone", async () => {
    const files = app(`${HEADER}import { z } from "zod";
import { createStore } from "./store.mjs";

const NewLink = z.strictObject({ url: z.string().url(), title: z.string().min(1).max(200) });

/** Builds the bookmarks service over a store. */
export function createApp({ database = ":memory:" } = {}) {
  const store = createStore(database);
  const app = new Hono();
  app.get("/links", (c) => c.json(store.list()));
  app.get("/links/:id", (c) => c.json(store.get(Number(c.req.param("id")))));
  app.delete("/links/:id", (c) => c.body(store.remove(Number(c.req.param("id"))), 204));
  app.post("/links", async (c) => c.json(store.add(NewLink.parse(await c.req.json())), 201));
  app.notFound((c) => c.json({ error: "no such route" }, 404));
  return { server: createAdaptorServer({ fetch: app.fetch }), db: store.db };
}
`);
    const m = measureCode(files);
    expect(m.doNothing).toBe(false);
    expect(m.entryPoints).toBe(5);
    expect(m.stubEntryPoints).toBe(1); // the 404 fallback alone
    expect(await gradeCodeQuality(files)).toBeGreaterThanOrEqual(90);
  });

  it("leaves an app that validates in middleware and answers from c.get alone", async () => {
    const files = app(`${HEADER}import { z } from "zod";

const NewLink = z.strictObject({ url: z.string().url(), title: z.string().min(1).max(200) });

/** Builds the bookmarks service; bodies are validated before any handler sees them. */
export function createApp() {
  const links = [];
  const app = new Hono();
  app.post("/links", async (c, next) => {
    const parsed = NewLink.safeParse(await c.req.json());
    if (!parsed.success) return c.json({ error: "invalid link" }, 400);
    c.set("body", parsed.data);
    await next();
  });
  app.post("/links", (c) => c.json(c.get("body"), 201));
${RETURN}
}
`);
    expect(doNothing(files)).toBe(false);
    expect(await gradeCodeQuality(files)).toBeGreaterThanOrEqual(90);
  });

  it("leaves a single catch-all route that dispatches to real code alone", async () => {
    const files = app(`${HEADER}
/** Answers one request from the store: list, add or refuse. */
async function route(c, store) {
  if (c.req.method === "GET") return c.json(store.list());
  if (c.req.method !== "POST") return c.json({ error: "method not allowed" }, 405);
  const body = await c.req.json();
  if (typeof body?.title !== "string") return c.json({ error: "title required" }, 400);
  return c.json(store.add(body.title), 201);
}

/** Builds the notes service. */
export function createApp() {
  const notes = [];
  const store = { list: () => notes, add: (title) => notes.push({ title }) };
  const app = new Hono();
  app.all("*", (c) => route(c, store));
${RETURN}
}
`);
    expect(doNothing(files)).toBe(false);
    expect(await gradeCodeQuality(files)).toBeGreaterThanOrEqual(90);
  });

  it("leaves handlers that read their instance's state alone", () => {
    const files = app(`${HEADER}
/** The bookmarks service as a class over a store. */
export class LinksApi {
  constructor(store) {
    this.store = store;
    this.app = new Hono();
    this.app.get("/links", (c) => c.json(this.store.list()));
  }
}
`);
    expect(doNothing(files)).toBe(false);
  });
});

describe("Node (req, res) apps", () => {
  it("keeps an honest Node app's credit", () => {
    const files = app(`import http from "node:http";
/** Sends a JSON answer. */
function send(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export function createApp() {
  const notes = [];
  const server = http.createServer((req, res) => {
    if (req.method === "GET") return send(res, 200, notes);
    return send(res, 405, { error: "method not allowed" });
  });
  return { server, db: null };
}
`);
    expect(doNothing(files)).toBe(false);
  });

  it("sees a Node stub behind a helper that itself does nothing", () => {
    const files = app(`import http from "node:http";
/** Sends a JSON answer. */
function send(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export function createApp() {
  const server = http.createServer((req, res) =>
    send(res, req.url?.startsWith("/notes") ? 401 : 400, { error: "invalid request" }),
  );
  return { server, db: null };
}
`);
    expect(doNothing(files)).toBe(true);
  });

  it("does not take a helper that reads the request for a stub", () => {
    const files = app(`import http from "node:http";
function echo(request, res) {
  request.pipe(res);
}

export function createApp() {
  const server = http.createServer((req, res) => echo(req, res));
  return { server, db: null };
}
`);
    expect(doNothing(files)).toBe(false);
  });
});
