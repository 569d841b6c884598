/**
 * The install sandbox's PyPI proxy (src/deps/pypi-proxy.ts), spoken to directly over its Unix
 * socket: it answers a simple index made from the lock (a locked project's page lists only the
 * locked wheels, relinked to the proxy), serves a file only if a page listed it, and refuses
 * any other project, file, method, absolute-form target or `..` path without asking upstream.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPypiProxy, type PypiProxy } from "../src/deps/pypi-proxy.ts";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const locked = Buffer.from("the locked wheel");
const newer = Buffer.from("a newer wheel the lock does not name");
const sdist = Buffer.from("the locked sdist");
let upstream: Server;
let upstreamRequests: string[];
let proxy: PypiProxy;
let dir: string;

function ask(method: string, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path.join(dir, "r.sock"), method, path: target }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  upstreamRequests = [];
  // A PEP 503 HTML page only (no JSON): the proxy must read it.
  upstream = createServer((req, res) => {
    upstreamRequests.push(req.url ?? "");
    if (req.url === "/simple/tiny-lib/") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end(
        [
          `<a href="/f/tiny_lib-1.0-py3-none-any.whl#sha256=${sha(locked)}">tiny_lib-1.0-py3-none-any.whl</a>`,
          `<a href="/f/tiny_lib-1.1-py3-none-any.whl#sha256=${sha(newer)}">tiny_lib-1.1-py3-none-any.whl</a>`,
          `<a href="/f/tiny_lib-1.0.tar.gz#sha256=${sha(sdist)}">tiny_lib-1.0.tar.gz</a>`,
        ].join("\n"),
      );
    }
    if (req.url === "/f/tiny_lib-1.0-py3-none-any.whl") return res.writeHead(200).end(locked);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const { port } = upstream.address() as AddressInfo;
  dir = mkdtempSync(path.join(tmpdir(), "pypi-proxy-"));
  proxy = await startPypiProxy({
    socketPath: path.join(dir, "r.sock"),
    index: `http://127.0.0.1:${port}/simple`,
    fileOrigins: [],
    releases: [{ name: "Tiny_Lib", version: "1.0", sha256: [sha(locked), sha(sdist)] }],
    maxFileBytes: 1024 * 1024,
    maxTotalBytes: 1024 * 1024,
    fetchTimeoutMs: 5000,
  });
});

afterAll(async () => {
  await proxy.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe("PyPI proxy", () => {
  it("lists only the locked wheel of a locked project, relinked to itself, and serves it", async () => {
    const page = await ask("GET", "/simple/tiny-lib/");
    expect(page.status).toBe(200);
    const links = [...page.body.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toEqual([
      `/files/${sha(locked)}/tiny_lib-1.0-py3-none-any.whl#sha256=${sha(locked)}`,
    ]);
    const file = await ask("GET", links[0]!.split("#")[0]!);
    expect(file).toEqual({ status: 200, body: locked.toString("utf8") });
  });

  it("refuses another project, an unlisted file, another method, another host and `..`, unfetched", async () => {
    await ask("GET", "/simple/tiny-lib/");
    const before = upstreamRequests.length;
    const refusedBefore = proxy.requests.filter((q) => q.refused).length;
    expect((await ask("GET", "/simple/requests/")).status).toBe(403);
    expect((await ask("GET", `/files/${sha(newer)}/tiny_lib-1.1-py3-none-any.whl`)).status).toBe(
      403,
    );
    expect((await ask("GET", `/files/${sha(sdist)}/tiny_lib-1.0.tar.gz`)).status).toBe(403);
    expect((await ask("POST", "/simple/tiny-lib/")).status).toBe(403);
    expect((await ask("GET", "http://169.254.169.254/simple/tiny-lib/")).status).toBe(403);
    expect((await ask("GET", "/simple/tiny-lib/../requests/")).status).toBe(403);
    expect(upstreamRequests.length).toBe(before);
    expect(
      proxy.requests
        .filter((q) => q.refused)
        .slice(refusedBefore)
        .map((q) => q.refused),
    ).toEqual([
      "not a project of the lockfile",
      "not a file of the lockfile",
      "not a file of the lockfile",
      "method POST",
      "absolute URL",
      "a path with ..",
    ]);
  });
});
