// Example submission "stub": a do-nothing bookmarks service that answers every request with 400
// (401 on the routes that need a token). It must earn nothing (docs/design.md §33).
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";

/**
 * Builds the bookmarks service: register, log in, create, list, read and delete bookmarks.
 * @returns {{ server: import("node:http").Server, db: null }} a server that is not yet listening
 */
export function createApp() {
  const app = new Hono();
  app.all("*", (c) =>
    c.json({ error: "invalid request" }, c.req.path.startsWith("/links") ? 401 : 400),
  );
  return { server: createAdaptorServer({ fetch: app.fetch }), db: null };
}
