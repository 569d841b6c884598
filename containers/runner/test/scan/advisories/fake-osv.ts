/**
 * A fake OSV API on 127.0.0.1 (node:http) for the live adapter's tests: `POST /v1/querybatch`
 * answers ids from a table of hits, `GET /v1/vulns/{id}` answers records; each test can replace
 * either answer to misbehave (slow, wrong status, wrong types, too large).
 */
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeRequest {
  method: string;
  path: string;
  body: string;
}

/** What the fake answers: a status, a body (JSON unless a string), an optional delay. */
export interface FakeAnswer {
  status?: number;
  body: unknown;
  delayMs?: number;
  headers?: Record<string, string>;
}

export interface FakeOsvOptions {
  /** Advisory ids per `ecosystem:name@version`. */
  hits: Record<string, string[]>;
  /** Records by id. */
  records: Record<string, unknown>;
  /** Replaces the querybatch answer (`round` counts batch requests from 0). */
  batch?: (queries: unknown[], round: number) => FakeAnswer | undefined;
  /** Replaces a record answer. */
  record?: (id: string) => FakeAnswer | undefined;
}

export interface FakeOsv {
  endpoint: string;
  requests: FakeRequest[];
  close(): Promise<void>;
}

interface Query {
  package: { ecosystem: string; name: string };
  version: string;
}

/** Starts the fake; `endpoint` is its querybatch URL. */
export async function startFakeOsv(options: FakeOsvOptions): Promise<FakeOsv> {
  const requests: FakeRequest[] = [];
  let rounds = 0;
  const send = (res: ServerResponse, a: FakeAnswer) => {
    const reply = () => {
      const text = typeof a.body === "string" ? a.body : JSON.stringify(a.body);
      res.writeHead(a.status ?? 200, { "content-type": "application/json", ...a.headers });
      res.end(text);
    };
    if (a.delayMs) setTimeout(reply, a.delayMs).unref();
    else reply();
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = req.url ?? "";
      requests.push({ method: req.method ?? "", path, body });
      if (req.method === "POST" && path === "/v1/querybatch") {
        const { queries } = JSON.parse(body) as { queries: Query[] };
        const custom = options.batch?.(queries, rounds++);
        if (custom) return send(res, custom);
        const results = queries.map((q) => {
          const ids = options.hits[`${q.package.ecosystem}:${q.package.name}@${q.version}`];
          return ids?.length
            ? { vulns: ids.map((id) => ({ id, modified: "2024-01-01T00:00:00Z" })) }
            : {};
        });
        return send(res, { body: { results } });
      }
      const m = /^\/v1\/vulns\/([^/]+)$/.exec(path);
      if (req.method === "GET" && m) {
        const id = decodeURIComponent(m[1]!);
        const custom = options.record?.(id);
        if (custom) return send(res, custom);
        const record = options.records[id];
        return send(res, record ? { body: record } : { status: 404, body: { code: 5 } });
      }
      send(res, { status: 404, body: { code: 5 } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/v1/querybatch`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Real-shaped OSV records (trimmed copies of osv.dev's). */
export const JINJA2_GHSA = {
  id: "GHSA-g3rq-g295-4j3m",
  summary: "Regular Expression Denial of Service (ReDoS) in Jinja2",
  details: "This affects the package jinja2 from 0.0.0 and before 2.11.3.",
  aliases: ["CVE-2020-28493", "PYSEC-2021-66"],
  modified: "2024-09-24T21:03:02Z",
  published: "2021-03-19T21:28:05Z",
  database_specific: { cwe_ids: ["CWE-400"], severity: "MODERATE", github_reviewed: true },
  affected: [
    {
      package: { ecosystem: "PyPI", name: "jinja2", purl: "pkg:pypi/jinja2" },
      ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "2.11.3" }] }],
    },
  ],
  severity: [{ type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L" }],
  references: [{ type: "ADVISORY", url: "https://nvd.nist.gov/vuln/detail/CVE-2020-28493" }],
};

export const JINJA2_PYSEC = {
  id: "PYSEC-2021-66",
  details: "This affects the package jinja2 from 0.0.0 and before 2.11.3.",
  aliases: ["CVE-2020-28493", "GHSA-g3rq-g295-4j3m"],
  modified: "2024-09-24T21:03:02Z",
  affected: [
    {
      package: { ecosystem: "PyPI", name: "jinja2" },
      ranges: [
        { type: "GIT", repo: "https://github.com/pallets/jinja", events: [{ introduced: "0" }] },
        { type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "2.11.3" }] },
      ],
      versions: ["2.11.2"],
    },
  ],
};

export const LODASH_GHSA = {
  id: "GHSA-p6mc-m468-83gw",
  summary: "Prototype Pollution in lodash",
  aliases: ["CVE-2020-8203"],
  modified: "2024-02-16T08:18:30Z",
  database_specific: { cwe_ids: ["CWE-1321", "CWE-770"] },
  affected: [
    {
      package: { ecosystem: "npm", name: "lodash" },
      ranges: [{ type: "SEMVER", events: [{ introduced: "3.7.0" }, { fixed: "4.17.19" }] }],
    },
  ],
  severity: [{ type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:H/A:H" }],
};
