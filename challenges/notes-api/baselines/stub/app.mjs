// The stub baseline: the interface and nothing behind it. Every route answers 501, so it shows
// on the board what a submission that only boots scores.
import http from "node:http";
import { DatabaseSync } from "node:sqlite";

export function createApp({ database = ":memory:" } = {}) {
  const db = new DatabaseSync(database);
  const server = http.createServer((req, res) => {
    res.writeHead(501, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "not implemented" }));
  });
  return { server, db };
}
