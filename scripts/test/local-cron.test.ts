/**
 * The local clock of `npm start` (scripts/lib/local-cron.ts): it reads the crons of
 * wrangler.toml's top-level [triggers], matches them in UTC, and fires the scheduled handler
 * through wrangler dev's trigger route, on its own, every interval.
 */
import { createServer, type Server } from "node:http";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cronMatches, readCrons, startLocalCron } from "../lib/local-cron.ts";

const ROOT = path.join(import.meta.dirname, "../..");

let server: Server | null = null;
let stop: (() => void) | null = null;
afterEach(() => {
  stop?.();
  server?.close();
});

describe("local cron", () => {
  it("reads the crons of the top-level [triggers]", () => {
    expect(readCrons(path.join(ROOT, "wrangler.toml"))).toEqual(["*/15 * * * *"]);
  });

  it("matches five-field expressions in UTC", () => {
    const at = (iso: string) => new Date(iso);
    expect(cronMatches("*/15 * * * *", at("2026-03-01T10:45:00Z"))).toBe(true);
    expect(cronMatches("*/15 * * * *", at("2026-03-01T10:46:00Z"))).toBe(false);
    expect(cronMatches("0 3 * * 1-5", at("2026-03-02T03:00:10Z"))).toBe(true); // a Monday
    expect(cronMatches("0 3 * * 1-5", at("2026-03-01T03:00:00Z"))).toBe(false); // a Sunday
    expect(cronMatches("5,35 * 1 * *", at("2026-03-01T00:35:00Z"))).toBe(true);
    expect(() => cronMatches("* * *", at("2026-03-01T00:00:00Z"))).toThrow(/five fields/);
  });

  it("fires the scheduled handler by itself every interval", async () => {
    const hits: string[] = [];
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      res.end("ok");
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    stop = startLocalCron({
      api: `http://127.0.0.1:${port}`,
      crons: ["*/15 * * * *"],
      intervalSeconds: 0.2,
      log: () => {},
    });
    const t0 = Date.now();
    while (hits.length < 2 && Date.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 20));
    expect(hits.length).toBeGreaterThanOrEqual(2);
    expect(hits[0]).toMatch(
      /^\/cdn-cgi\/handler\/scheduled\?cron=\*%2F15%20\*%20\*%20\*%20\*&time=\d+$/,
    );
  });
});
