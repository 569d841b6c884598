/**
 * @module runner/deps/pypi-proxy
 * The PyPI side of a sandboxed install's only network path: an HTTP server on a Unix socket
 * (bind-mounted into the install sandbox, which has no network of its own) that answers pip as a
 * PEP 503 simple index generated from the lock alone. A locked project's page is built from the
 * configured upstream index's page for it (PEP 691 JSON when offered, else PEP 503 HTML), keeping
 * only the wheels whose sha256 the lock lists, each relinked to the proxy; a file is served only
 * if its bytes' sha256 is that hash. Invariants: only GET of a locked project's page, or of a file
 * such a page listed, is answered; the upstream is fetched at the configured index and at the
 * allowed file origins only, without redirects; every response and the whole install are
 * bounded in bytes; every request is recorded, refusals with their rule.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { chmod, rm } from "node:fs/promises";
import { readBoundedBody } from "../http-body.ts";
import type { ProxyRequest, RegistryProxy } from "./registry-proxy.ts";

/** One locked release: its normalized name, version and every sha256 (hex) the lock allows. */
export interface LockedPythonRelease {
  name: string;
  version: string;
  sha256: readonly string[];
  /**
   * The files the lock itself names (uv.lock), each URL with its sha256 (hex): the page is built
   * from these, and the upstream's page is not read.
   */
  files?: readonly { url: string; sha256: string }[];
}

/** What the proxy serves, from where, and how much. */
export interface PypiProxyOptions {
  socketPath: string;
  /** The upstream simple index's base URL (`https://pypi.org/simple`, a local one in tests). */
  index: string;
  /** Origins files may be fetched from besides the index's own (`https://files.pythonhosted.org`). */
  fileOrigins: readonly string[];
  releases: readonly LockedPythonRelease[];
  /** Most bytes of one file. */
  maxFileBytes: number;
  /** Most bytes served in all. */
  maxTotalBytes: number;
  fetchTimeoutMs: number;
  fetch?: typeof fetch;
}

/** A running PyPI proxy: the registry proxy's log, and why a locked release had no wheel. */
export interface PypiProxy extends RegistryProxy {
  /** Releases whose page listed no wheel the lock allows, with what was found instead. */
  missing: { spec: string; detail: string }[];
}

const MAX_PAGE_BYTES = 8 * 1024 * 1024;
const MAX_SOCKET_PATH_BYTES = 107;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** PEP 503's normalized project name. */
export function normalizeProjectName(name: string): string {
  return name.replace(/[-_.]+/g, "-").toLowerCase();
}

/** One file an upstream simple page lists. */
interface UpstreamFile {
  filename: string;
  url: URL;
  sha256: string | null;
}

const unescapeHtml = (s: string) =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#0*39;/g, "'")
    .replace(/&amp;/g, "&");

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The files of a PEP 691 JSON or PEP 503 HTML simple page at `base`. */
function parseSimplePage(text: string, json: boolean, base: URL): UpstreamFile[] {
  const files: UpstreamFile[] = [];
  const add = (filename: string, href: string, sha256: string | null) => {
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      return;
    }
    const fragment = /(?:^|&)sha256=([0-9a-fA-F]{64})/.exec(url.hash.slice(1));
    url.hash = "";
    const hash = (sha256 ?? fragment?.[1] ?? "").toLowerCase();
    files.push({ filename, url, sha256: SHA256_HEX.test(hash) ? hash : null });
  };
  if (json) {
    const parsed = JSON.parse(text) as { files?: unknown };
    if (!Array.isArray(parsed.files)) return files;
    for (const f of parsed.files as Record<string, unknown>[]) {
      const hashes = (f.hashes ?? {}) as Record<string, unknown>;
      if (typeof f.filename === "string" && typeof f.url === "string")
        add(f.filename, f.url, typeof hashes.sha256 === "string" ? hashes.sha256 : null);
    }
    return files;
  }
  for (const m of text.matchAll(/<a\s[^>]*?href\s*=\s*"([^"]*)"[^>]*>([^<]*)<\/a>/gi)) {
    const href = unescapeHtml(m[1]!);
    const label = unescapeHtml(m[2]!).trim();
    add(label || decodeURIComponent(href.split("#")[0]!.split("/").pop() ?? ""), href, null);
  }
  return files;
}

/** Starts the proxy on `options.socketPath` (which must not exist yet). */
export async function startPypiProxy(options: PypiProxyOptions): Promise<PypiProxy> {
  if (Buffer.byteLength(options.socketPath) > MAX_SOCKET_PATH_BYTES)
    throw new Error(
      `socket path longer than ${MAX_SOCKET_PATH_BYTES} bytes: ${options.socketPath}`,
    );
  const doFetch = options.fetch ?? fetch;
  const index = new URL(options.index.endsWith("/") ? options.index : `${options.index}/`);
  const origins = new Set([index.origin, ...options.fileOrigins.map((o) => new URL(o).origin)]);
  const byName = new Map(options.releases.map((r) => [normalizeProjectName(r.name), r]));
  /** Files a served page listed, by sha256: where upstream has them, and whose they are. */
  const files = new Map<string, { url: URL; filename: string; spec: string }>();
  const requests: ProxyRequest[] = [];
  const missing: PypiProxy["missing"] = [];
  let served = 0;

  const refuse = (req: IncomingMessage, res: ServerResponse, path: string, rule: string) => {
    requests.push({ method: req.method ?? "", path, status: 403, bytes: 0, refused: rule });
    res.writeHead(403, { "content-type": "text/plain" }).end(`refused: ${rule}\n`);
  };
  const upstreamFailed = (res: ServerResponse, path: string, detail: string) => {
    requests.push({ method: "GET", path, status: 502, bytes: 0, refused: `upstream: ${detail}` });
    res.writeHead(502).end();
  };

  const servePage = async (res: ServerResponse, path: string, release: LockedPythonRelease) => {
    const spec = `${release.name}==${release.version}`;
    if (release.files) {
      const located: UpstreamFile[] = [];
      for (const f of release.files) {
        let url: URL;
        try {
          url = new URL(f.url);
        } catch {
          continue;
        }
        url.hash = "";
        const filename = decodeURIComponent(url.pathname.split("/").pop() ?? "");
        located.push({ filename, url, sha256: f.sha256 });
      }
      return answerPage(res, path, release, spec, located);
    }
    const pageUrl = new URL(`${normalizeProjectName(release.name)}/`, index);
    let text: string;
    let json: boolean;
    try {
      const r = await doFetch(pageUrl, {
        redirect: "error",
        headers: {
          accept: "application/vnd.pypi.simple.v1+json, text/html;q=0.1",
        },
        signal: AbortSignal.timeout(options.fetchTimeoutMs),
      });
      if (r.status !== 200) {
        await r.body?.cancel();
        return upstreamFailed(res, path, `${r.status} for ${spec}'s page`);
      }
      json = (r.headers.get("content-type") ?? "").includes("application/vnd.pypi.simple.v1+json");
      const body = await readBoundedBody(r, MAX_PAGE_BYTES);
      if (body === null) return upstreamFailed(res, path, `${spec}'s page is too large`);
      text = Buffer.from(body).toString("utf8");
    } catch (e) {
      return upstreamFailed(res, path, e instanceof Error ? e.message : "fetch failed");
    }
    let listed: UpstreamFile[];
    try {
      listed = parseSimplePage(text, json, pageUrl);
    } catch {
      return upstreamFailed(res, path, `${spec}'s page is not a simple index page`);
    }
    answerPage(res, path, release, spec, listed);
  };

  /** Answers the page of `release`: the `listed` wheels whose sha256 the lock allows. */
  const answerPage = (
    res: ServerResponse,
    path: string,
    release: LockedPythonRelease,
    spec: string,
    listed: readonly UpstreamFile[],
  ) => {
    const allowed = new Set(release.sha256);
    const kept: UpstreamFile[] = [];
    const seen: string[] = [];
    for (const f of listed) {
      if (f.sha256 === null || !allowed.has(f.sha256)) continue;
      seen.push(f.filename);
      // --only-binary :all: — an sdist would run its build backend; wheels only.
      if (!f.filename.endsWith(".whl")) continue;
      if (!origins.has(f.url.origin)) {
        requests.push({
          method: "GET",
          path: f.url.href.slice(0, 200),
          status: 403,
          bytes: 0,
          refused: `${spec}: ${f.filename} is on ${f.url.origin}, not the configured index's host`,
        });
        continue;
      }
      kept.push(f);
    }
    if (kept.length === 0)
      missing.push({
        spec,
        detail:
          seen.length > 0
            ? `no wheel among the locked files (${seen.join(", ").slice(0, 300)}): only wheels are installed (--only-binary :all:)`
            : "the index lists no file whose sha256 the lock names",
      });
    const links = kept.map((f) => {
      files.set(f.sha256!, { url: f.url, filename: f.filename, spec });
      const href = `/files/${f.sha256}/${encodeURIComponent(f.filename)}#sha256=${f.sha256}`;
      return `<a href="${escapeHtml(href)}">${escapeHtml(f.filename)}</a><br/>`;
    });
    const page = Buffer.from(
      `<!DOCTYPE html>\n<html><body>\n${links.join("\n")}\n</body></html>\n`,
      "utf8",
    );
    requests.push({ method: "GET", path, status: 200, bytes: page.byteLength });
    res.writeHead(200, { "content-type": "text/html", "content-length": page.byteLength });
    res.end(page);
  };

  const serveFile = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    sha256: string,
  ) => {
    const file = files.get(sha256);
    if (!file) return refuse(req, res, path, "not a file of the lockfile");
    let bytes: Uint8Array | null;
    try {
      const r = await doFetch(file.url, {
        redirect: "error",
        signal: AbortSignal.timeout(options.fetchTimeoutMs),
      });
      if (r.status !== 200) {
        await r.body?.cancel();
        return upstreamFailed(res, path, `${r.status}`);
      }
      bytes = await readBoundedBody(
        r,
        Math.max(0, Math.min(options.maxFileBytes, options.maxTotalBytes - served)),
      );
    } catch (e) {
      return upstreamFailed(res, path, e instanceof Error ? e.message : "fetch failed");
    }
    if (bytes === null)
      return refuse(req, res, path, `${file.spec}: larger than the install's byte limit`);
    if (createHash("sha256").update(bytes).digest("hex") !== sha256)
      return refuse(
        req,
        res,
        path,
        `${file.spec}: ${file.filename} does not match the lock's hash`,
      );
    served += bytes.byteLength;
    requests.push({ method: "GET", path, status: 200, bytes: bytes.byteLength });
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": bytes.byteLength,
    });
    res.end(bytes);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const target = req.url ?? "";
    if (!target.startsWith("/")) return refuse(req, res, target.slice(0, 200), "absolute URL");
    let path: string;
    try {
      path = decodeURIComponent(new URL(target, "http://proxy.invalid").pathname);
    } catch {
      return refuse(req, res, target.slice(0, 200), "malformed path");
    }
    if (req.method !== "GET") return refuse(req, res, path, `method ${req.method ?? ""}`);
    if (target.includes("..") || path.includes(".."))
      return refuse(req, res, path, "a path with ..");
    const page = /^\/simple\/([^/]+)\/?$/.exec(path);
    if (page) {
      const release = byName.get(normalizeProjectName(page[1]!));
      if (!release) return refuse(req, res, path, "not a project of the lockfile");
      return servePage(res, path, release);
    }
    const file = /^\/files\/([0-9a-f]{64})\/[^/]+$/.exec(path);
    if (file) return serveFile(req, res, path, file[1]!);
    return refuse(req, res, path, "not a page or file of the lockfile");
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
  await chmod(options.socketPath, 0o777);
  return {
    requests,
    missing,
    servedBytes: () => served,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(options.socketPath, { force: true });
    },
  };
}
