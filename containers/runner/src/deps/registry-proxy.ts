/**
 * @module runner/deps/registry-proxy
 * The host side of a sandboxed install's only network path: an HTTP server on a Unix socket
 * (bind-mounted into the install sandbox, which has no network of its own) that forwards exactly
 * the tarballs a validated lockfile names to the one configured registry, and nothing else.
 * Invariants: only GET of an allowlisted path is forwarded, to the configured upstream origin
 * only, without redirects; every tarball is held to its lock's sha512 before a byte of it is
 * served; each response and the whole install are bounded in bytes; every request is recorded,
 * refusals with their rule.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { chmod, rm } from "node:fs/promises";
import { readBoundedBody } from "../http-body.ts";

/** One tarball the install may fetch: its path on the registry and its lock's integrity. */
export interface AllowedTarball {
  /** `/<name>/-/<unscoped>-<version>.tgz`, as the registry serves it. */
  path: string;
  /** The package it belongs to, for messages (`name@version`). */
  spec: string;
  /** The lock's `sha512-…` SRI. */
  integrity: string;
}

/** What the proxy forwards, and how much. */
export interface RegistryProxyOptions {
  socketPath: string;
  /** The registry's base URL (`https://registry.npmjs.org`, a local one in tests). */
  upstream: string;
  allowed: readonly AllowedTarball[];
  /** Most bytes of one tarball. */
  maxTarballBytes: number;
  /** Most bytes served in all. */
  maxTotalBytes: number;
  /** Deadline of one upstream fetch. */
  fetchTimeoutMs: number;
  fetch?: typeof fetch;
}

/** One request the sandbox made, as the proxy answered it. */
export interface ProxyRequest {
  method: string;
  path: string;
  status: number;
  bytes: number;
  /** Why it was not served (the rule), when it was not. */
  refused?: string;
}

/** A running proxy. */
export interface RegistryProxy {
  requests: ProxyRequest[];
  /** Bytes served so far. */
  servedBytes(): number;
  close(): Promise<void>;
}

/** Longest Unix socket path Linux takes (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

/** Starts the proxy on `options.socketPath` (which must not exist yet). */
export async function startRegistryProxy(options: RegistryProxyOptions): Promise<RegistryProxy> {
  if (Buffer.byteLength(options.socketPath) > MAX_SOCKET_PATH_BYTES)
    throw new Error(
      `socket path longer than ${MAX_SOCKET_PATH_BYTES} bytes: ${options.socketPath}`,
    );
  const doFetch = options.fetch ?? fetch;
  const upstream = new URL(options.upstream);
  const byPath = new Map(options.allowed.map((a) => [a.path, a]));
  const requests: ProxyRequest[] = [];
  let served = 0;

  const refuse = (req: IncomingMessage, res: ServerResponse, path: string, rule: string) => {
    requests.push({ method: req.method ?? "", path, status: 403, bytes: 0, refused: rule });
    res.writeHead(403, { "content-type": "text/plain" }).end(`refused: ${rule}\n`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // The request target is the sandbox's: parse it as a path on the upstream, never as a URL
    // that could name another host (an absolute-form target is refused).
    const target = req.url ?? "";
    if (!target.startsWith("/")) return refuse(req, res, target.slice(0, 200), "absolute URL");
    let path: string;
    try {
      path = decodeURIComponent(new URL(target, "http://proxy.invalid").pathname);
    } catch {
      return refuse(req, res, target.slice(0, 200), "malformed path");
    }
    if (req.method !== "GET") return refuse(req, res, path, `method ${req.method ?? ""}`);
    const allowed = byPath.get(path);
    if (!allowed) return refuse(req, res, path, "not a tarball of the lockfile");
    const url = new URL(upstream.pathname.replace(/\/$/, "") + allowed.path, upstream.origin);
    let bytes: Uint8Array | null;
    try {
      const r = await doFetch(url, {
        redirect: "error",
        signal: AbortSignal.timeout(options.fetchTimeoutMs),
      });
      if (r.status !== 200) {
        await r.body?.cancel();
        requests.push({
          method: "GET",
          path,
          status: 502,
          bytes: 0,
          refused: `upstream ${r.status}`,
        });
        res.writeHead(502).end();
        return;
      }
      bytes = await readBoundedBody(
        r,
        Math.min(options.maxTarballBytes, options.maxTotalBytes - served),
      );
    } catch (e) {
      const detail = e instanceof Error ? e.message : "fetch failed";
      requests.push({ method: "GET", path, status: 502, bytes: 0, refused: `upstream: ${detail}` });
      res.writeHead(502).end();
      return;
    }
    if (bytes === null)
      return refuse(req, res, path, `${allowed.spec}: larger than the install's byte limit`);
    const [algorithm, digest] = allowed.integrity.split("-", 2);
    const actual =
      algorithm === "sha512" ? createHash("sha512").update(bytes).digest("base64") : null;
    if (actual !== digest)
      return refuse(req, res, path, `${allowed.spec}: tarball does not match the lock's integrity`);
    served += bytes.byteLength;
    requests.push({ method: "GET", path, status: 200, bytes: bytes.byteLength });
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": bytes.byteLength,
    });
    res.end(bytes);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.socketPath, () => resolve());
  });
  // The sandbox runs as another uid: it must be able to connect (the folder is read-only to it).
  await chmod(options.socketPath, 0o777);
  return {
    requests,
    servedBytes: () => served,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(options.socketPath, { force: true });
    },
  };
}
