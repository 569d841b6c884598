/**
 * The runner as the ingest tests see it: the Node-side handler of every outbound fetch of the
 * Worker under test (Miniflare `outboundService`), reached through RUNNER_URL exactly as in
 * `wrangler dev`. A bundle of an example challenge (challenges/) goes, as signed, to the real
 * runner (which checks the signature with the same RUNNER_SHARED_SECRET); synthetic test bundles
 * get a stand-in that checks the signature too and answers in the runner's QaReport shape.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { authenticateRunnerRequest, describeRunnerAuthError } from "@bouts/runner-auth";

/** The RUNNER_URL the tests give the Worker. */
export const FAKE_RUNNER_URL = "http://runner.test";
/** The RUNNER_SHARED_SECRET the tests give the Worker and the real runner. */
export const RUNNER_SECRET = randomBytes(32).toString("hex");

const ROOT = path.join(import.meta.dirname, "../../..");
const EXAMPLE_CHALLENGES = new Set(
  readdirSync(path.join(ROOT, "challenges"), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name),
);

/**
 * Handles every outbound fetch of the Worker under test: multipart with a `bundle` part, as the
 * runner's app expects. A synthetic bundle's marker file decides the stand-in's answer
 * (containers/runner/src/challenge/qa.ts's shape): QA_SHOULD_FAIL → not publishable;
 * RUNNER_REFUSES → the runner refuses the bundle (422); RUNNER_CRASH → 500.
 */
export async function handleFakeRunner(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.origin !== FAKE_RUNNER_URL || url.pathname !== "/v1/challenges/qa") {
    return new Response("no network in tests", { status: 502 });
  }
  const raw = new Uint8Array(await request.clone().arrayBuffer());
  const auth = await authenticateRunnerRequest({
    method: request.method,
    path: url.pathname + url.search,
    headers: request.headers,
    readBody: () => Promise.resolve(raw),
    secret: RUNNER_SECRET,
    now: new Date(),
  });
  if (!auth.ok)
    return Response.json(
      { status: 401, detail: describeRunnerAuthError(auth.error) },
      { status: 401, headers: { "Content-Type": "application/problem+json" } },
    );
  const form = await request.formData();
  const bundle = form.get("bundle");
  if (!(bundle instanceof Blob)) {
    return Response.json({ status: 400, detail: "missing part bundle" }, { status: 400 });
  }
  const bytes = new Uint8Array(await bundle.arrayBuffer());
  const tar = gunzipSync(bytes);
  const manifest = readManifest(tar);
  const manifestId = typeof manifest?.id === "string" ? manifest.id : null;
  if (manifestId !== null && EXAMPLE_CHALLENGES.has(manifestId)) {
    // The request as the Worker signed it: the real runner checks the signature itself.
    return fetch(`${await realRunner()}/v1/challenges/qa`, {
      method: "POST",
      headers: request.headers,
      body: raw,
    });
  }
  const text = tar.toString("latin1");
  if (text.includes("RUNNER_REFUSES")) {
    return Response.json(
      { status: 422, detail: "bundle refused: tests/static/missing.test.js is listed but absent" },
      { status: 422, headers: { "Content-Type": "application/problem+json" } },
    );
  }
  if (text.includes("RUNNER_CRASH")) return new Response("boom", { status: 500 });
  if (text.includes("QA_SHOULD_FAIL")) {
    return Response.json(
      qaReport(false, ["the reference solution fails static test fizz.basic"], manifest),
    );
  }
  return Response.json(qaReport(true, [], manifest));
}

/** A whole QA report (the contract's `QaReportSchema`), with the bundle's own manifest. */
function qaReport(publishable: boolean, problems: string[], manifest: unknown) {
  return {
    challengeId: "fake",
    repeats: 3,
    publishable,
    tests: [],
    removed: [],
    problems,
    cleanedManifest: manifest,
  };
}

/** The bundle's root challenge.json, read from the (ustar) archive. */
function readManifest(tar: Buffer): Record<string, unknown> | null {
  for (let at = 0; at + 512 <= tar.length;) {
    const name = tar.toString("utf8", at, at + 100).replace(/\0.*$/s, "");
    if (!name) return null;
    const size = parseInt(tar.toString("utf8", at + 124, at + 136).trim() || "0", 8);
    if (name === "challenge.json" || name === "./challenge.json") {
      return JSON.parse(tar.toString("utf8", at + 512, at + 512 + size)) as Record<string, unknown>;
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return null;
}

let runner: Promise<string> | null = null;
let child: ChildProcess | null = null;

/**
 * Starts the real runner service (`npm run runner`, its isolation self-test included) once, on a
 * free loopback port, and stops it when the test process exits; returns its base URL.
 */
function realRunner(): Promise<string> {
  runner ??= (async () => {
    const port = await freePort();
    child = spawn("npm", ["run", "runner"], {
      cwd: ROOT,
      env: {
        ...process.env,
        RUNNER_HOST: "127.0.0.1",
        RUNNER_PORT: String(port),
        RUNNER_QA_REPEATS: "2",
        RUNNER_SHARED_SECRET: RUNNER_SECRET,
      },
      detached: true,
      stdio: "ignore",
    });
    child.unref();
    process.once("exit", () => {
      if (child?.pid) process.kill(-child.pid, "SIGTERM");
    });
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`the runner exited (${child.exitCode})`);
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return base;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error("the runner did not become healthy within 60 s");
  })();
  return runner;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}
