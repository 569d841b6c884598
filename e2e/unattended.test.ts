/**
 * Nothing waits for a person (issue 35), against a private `npm start` (e2e/platform.ts) with a
 * 3-second local clock (BOUTS_CRON_INTERVAL_SECONDS):
 *  - the runner killed (SIGKILL) while it runs a submission is restarted by `npm start` with the
 *    same secret, the platform's /healthz shows it unreachable and then ok again, and the
 *    submission is scored within 60 s of the runner being back;
 *  - a request whose Content-Length promises more than the client sends is answered 408 and
 *    closed within the body deadline (10 s without a byte), over a real socket, and nothing of
 *    it is stored;
 *  - a deadline 30 s ahead closes the challenge by itself (no call of the scheduled route by
 *    the test: the clock of `npm start` fires it).
 * Invariants: the test signals only processes of its own platform (found by its run marker).
 */
import { connect } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packDirectory } from "../scripts/lib/local-platform.ts";
import { ROOT, startPlatform, type Platform } from "./platform.ts";

const SLUG = "deep-merge";
const RUNNER_ENTRY = "containers/runner/src/server.ts";
/** What the issue asks: a run in flight is scored within 60 s of the runner's restart. */
const SCORED_AFTER_RESTART_MS = 60_000;

let platform: Platform;
let challengeId: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function api<T>(method: string, route: string, key: string | null, body?: FormData | object) {
  const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
  let payload: FormData | string | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${platform.api}${route}`, { method, headers, body: payload });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} → ${res.status}: ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : null) as T;
}

type Health = { ok: boolean; runner: { state: string; error?: string; capacity?: number } };

async function waitFor<T>(what: string, ms: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== null) return v;
    await sleep(200);
  }
  throw new Error(`${what}: not within ${ms} ms`);
}

/**
 * Sends one raw HTTP/1.1 request with `body` under a `Content-Length` of `length` (larger than
 * the body for a body that stops arriving), then nothing more; answers what came back and when
 * the server closed the connection.
 */
function sendRaw(
  method: string,
  route: string,
  key: string,
  contentType: string,
  body: string,
  length = body.length,
): Promise<{ text: string; ms: number }> {
  const url = new URL(platform.api);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const started = Date.now();
    let text = "";
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer in 30 s; got ${JSON.stringify(text.slice(0, 200))}`));
    }, 30_000);
    socket.on("data", (d: Buffer) => {
      text += d.toString();
      // A complete answer to a whole request: the server may keep the connection open.
      if (length === body.length && /\r\n\r\n/.test(text)) socket.end();
    });
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(giveUp);
      resolve({ text, ms: Date.now() - started });
    });
    socket.write(
      `${method} ${route} HTTP/1.1\r\nHost: ${url.host}\r\n` +
        `Authorization: Bearer ${key}\r\nContent-Type: ${contentType}\r\n` +
        `Content-Length: ${length}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/** A body whose Content-Length promises 4 KiB more than is sent. */
const sendShortBody = (route: string, key: string, contentType: string, partial: string) =>
  sendRaw("POST", route, key, contentType, partial, partial.length + 4096);

beforeAll(async () => {
  platform = await startPlatform({
    seed: [SLUG],
    logFile: path.join(ROOT, "test-artifacts/e2e-unattended.log"),
    timeoutMs: 240_000,
    env: { BOUTS_CRON_INTERVAL_SECONDS: "3" },
  });
  challengeId = platform.credentials.challenges.find((c) => c.slug === SLUG)!.id;
}, 300_000);

afterAll(async () => {
  await platform?.stop();
});

describe("npm start without a person", () => {
  it("restarts a killed runner and scores the submission it was running", async () => {
    const before = await api<Health>("GET", "/healthz", null);
    expect(before.runner.state).toBe("ok");
    expect(before.runner.capacity).toBeGreaterThan(0);

    const created = await api<{ key: { key: string } }>(
      "POST",
      "/v1/agents",
      platform.credentials.operator.key,
      { name: `Killed Kim ${Date.now().toString(36)}` },
    );
    const key = created.key.key;
    await api("POST", `/v1/challenges/${challengeId}/entries`, key, {});
    const form = new FormData();
    const archive = packDirectory(path.join(ROOT, "challenges", SLUG, "submissions", "complete"));
    form.set("archive", new Blob([archive]), "solution.tar.gz");
    const sub = await api<{ id: string }>(
      "POST",
      `/v1/challenges/${challengeId}/submissions`,
      key,
      form,
    );
    const status = async () =>
      (await api<{ status: string }>("GET", `/v1/submissions/${sub.id}`, key)).status;

    await waitFor("the submission running", 60_000, async () =>
      (await status()) === "running" ? true : null,
    );
    // Into the run itself (the Worker has sent it; the runner is preparing or executing).
    await sleep(1_500);
    const runnerPids = platform.pidsRunning(RUNNER_ENTRY);
    expect(runnerPids.length).toBeGreaterThan(0);
    const killedAt = Date.now();
    for (const pid of runnerPids) process.kill(pid, "SIGKILL");

    const down = await waitFor("/healthz showing the runner down", 10_000, async () => {
      const h = await api<Health>("GET", "/healthz", null);
      return h.runner.state === "unreachable" ? h : null;
    });
    expect(down.ok).toBe(true);
    expect(down.runner.error).toBeTruthy();

    await waitFor("the runner back", 90_000, async () => {
      const h = await api<Health>("GET", "/healthz", null);
      return h.runner.state === "ok" ? h : null;
    });
    const backAt = Date.now();
    // A new runner process, not a survivor of the kill.
    expect(platform.pidsRunning(RUNNER_ENTRY).some((p) => runnerPids.includes(p))).toBe(false);

    await waitFor("the submission scored", SCORED_AFTER_RESTART_MS, async () => {
      const s = await status();
      if (s === "failed") throw new Error("the submission failed");
      return s === "scored" ? s : null;
    });
    const scoredAt = Date.now();
    console.log(
      `kill to runner back: ${((backAt - killedAt) / 1000).toFixed(1)} s; runner back to scored: ${((scoredAt - backAt) / 1000).toFixed(1)} s; kill to scored: ${((scoredAt - killedAt) / 1000).toFixed(1)} s`,
    );
  }, 240_000);

  it("answers a body shorter than its Content-Length with 408 within the deadline", async () => {
    const operator = platform.credentials.operator.key;
    const agents = async () =>
      (await api<{ agents: unknown[] }>("GET", "/v1/agents", operator)).agents.length;
    const before = await agents();
    const json = await sendShortBody("/v1/agents", operator, "application/json", '{"name":"Sho');
    expect(json.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(json.text).toContain("application/problem+json");
    expect(json.text).toContain("Content-Length");
    expect(json.ms).toBeLessThan(20_000);
    expect(await agents()).toBe(before);

    const agent = platform.credentials.agent.key;
    const history = async () =>
      (
        await api<{ submissions: unknown[] }>(
          "GET",
          `/v1/challenges/${challengeId}/submissions`,
          agent,
        )
      ).submissions.length;
    await api("POST", `/v1/challenges/${challengeId}/entries`, agent, {}).catch(() => undefined);
    const submitted = await history();
    const upload = await sendShortBody(
      `/v1/challenges/${challengeId}/submissions`,
      agent,
      "multipart/form-data; boundary=b0",
      '--b0\r\nContent-Disposition: form-data; name="archive"; filename="a.tar.gz"\r\n\r\n\x1f',
    );
    expect(upload.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(upload.ms).toBeLessThan(20_000);
    expect(await history()).toBe(submitted);
  }, 60_000);

  it("answers a GET that carries a body as it answers one without (405 or 200, never 500)", async () => {
    const agent = platform.credentials.agent.key;
    const rpc = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "0", params: {} });
    const mcp = await sendRaw("GET", "/mcp", agent, "application/json", rpc);
    expect(mcp.text).toMatch(/^HTTP\/1\.1 405 /);
    expect(mcp.text).toMatch(/\r\nallow: POST\r\n/i);
    const read = await sendRaw("GET", `/v1/challenges/${challengeId}`, agent, "text/plain", "x");
    expect(read.text).toMatch(/^HTTP\/1\.1 200 /);
  }, 60_000);

  it("closes a challenge whose deadline passes, with no one calling anything", async () => {
    const closesAt = new Date(Date.now() + 30_000);
    await api("PUT", `/v1/challenges/${challengeId}/deadline`, platform.credentials.operator.key, {
      closesAt: closesAt.toISOString(),
    });
    const closed = await waitFor("the challenge closed", 60_000, async () => {
      const ch = await api<{ status: string }>(
        "GET",
        `/v1/challenges/${challengeId}`,
        platform.credentials.operator.key,
      );
      return ch.status === "closed" ? Date.now() : null;
    });
    expect(closed).toBeGreaterThanOrEqual(closesAt.getTime());
    console.log(`closed ${((closed - closesAt.getTime()) / 1000).toFixed(1)} s after the deadline`);
  }, 90_000);
});
