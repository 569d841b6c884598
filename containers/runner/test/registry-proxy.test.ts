/**
 * The install sandbox's registry proxy (src/deps/registry-proxy.ts), spoken to directly over
 * its Unix socket: it forwards a lock's tarballs and nothing else, with no method but GET, no
 * absolute-form target (another host), and no byte past its limits.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildPackage, startLocalNpmRegistry, type LocalNpmRegistry } from "@bouts/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRegistryProxy, type RegistryProxy } from "../src/deps/registry-proxy.ts";

const pkg = buildPackage({ name: "left-pad", version: "1.3.0", files: { "i.js": "1" } });
const other = buildPackage({ name: "not-in-lock", version: "1.0.0", files: { "i.js": "2" } });
let registry: LocalNpmRegistry;
let proxy: RegistryProxy;
let dir: string;

function ask(method: string, target: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path.join(dir, "r.sock"), method, path: target }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  registry = await startLocalNpmRegistry([pkg, other]);
  dir = mkdtempSync(path.join(tmpdir(), "proxy-"));
  proxy = await startRegistryProxy({
    socketPath: path.join(dir, "r.sock"),
    upstream: registry.url,
    allowed: [{ path: pkg.tarballPath, spec: "left-pad@1.3.0", integrity: pkg.integrity }],
    maxTarballBytes: 1024 * 1024,
    maxTotalBytes: 1024 * 1024,
    fetchTimeoutMs: 5000,
  });
});

afterAll(async () => {
  await proxy.close();
  await registry.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("registry proxy", () => {
  it("serves a tarball of the lock, byte for byte", async () => {
    const r = await ask("GET", pkg.tarballPath);
    expect(r.status).toBe(200);
    expect(Buffer.compare(r.body, Buffer.from(pkg.tarball))).toBe(0);
  });

  it("refuses what the lock does not name, another method and another host, unfetched", async () => {
    const before = registry.requests.length;
    expect((await ask("GET", other.tarballPath)).status).toBe(403);
    expect((await ask("GET", "/left-pad")).status).toBe(403);
    expect((await ask("POST", pkg.tarballPath)).status).toBe(403);
    expect((await ask("GET", `http://169.254.169.254${pkg.tarballPath}`)).status).toBe(403);
    expect((await ask("GET", "/left-pad/-/../../not-in-lock/-/not-in-lock-1.0.0.tgz")).status).toBe(
      403,
    );
    expect(registry.requests.length).toBe(before);
    expect(proxy.requests.filter((q) => q.refused).map((q) => q.refused)).toEqual([
      "not a tarball of the lockfile",
      "not a tarball of the lockfile",
      "method POST",
      "absolute URL",
      "not a tarball of the lockfile",
    ]);
  });
});
