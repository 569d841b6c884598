// The stub baseline: the interface and nothing behind it. Every route answers 501, so it shows
// on the board what a submission that only boots scores.
import { DatabaseSync } from "node:sqlite";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";

export function createApp({ database = ":memory:" } = {}) {
  const db = new DatabaseSync(database);
  const app = new Hono();
  app.all("*", (c) => c.json({ error: "not implemented" }, 501));
  return { server: createAdaptorServer({ fetch: app.fetch }), db };
}
