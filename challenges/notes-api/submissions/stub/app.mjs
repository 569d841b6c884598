// Example submission "stub": a do-nothing notes service that answers every request with 400
// (401 on the routes that need a token). It must earn nothing (docs/design.md §33).
import http from "node:http";

/**
 * Builds the notes service: register, log in, create, list and read private notes.
 * @returns {{ server: http.Server, db: null }} a server that is not yet listening
 */
export function createApp() {
  const server = http.createServer((req, res) => {
    const status = req.url?.startsWith("/notes") ? 401 : 400;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "invalid request" }));
  });
  return { server, db: null };
}
