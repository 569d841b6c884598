/** The live OSV adapter against a fake OSV API on 127.0.0.1: batching, records, bounds, failures. */
import { afterEach, describe, expect, it } from "vitest";
import type { AdvisoryPackage } from "../../../src/scan/advisories/index.ts";
import { queryOsv } from "../../../src/scan/advisories/index.ts";
import { JINJA2_GHSA, JINJA2_PYSEC, LODASH_GHSA, startFakeOsv } from "./fake-osv.ts";
import type { FakeOsv, FakeOsvOptions } from "./fake-osv.ts";

const JINJA2: AdvisoryPackage = { ecosystem: "PyPI", name: "Jinja2", version: "2.11.2" };
const LODASH: AdvisoryPackage = { ecosystem: "npm", name: "lodash", version: "4.17.15" };
const RECORDS = {
  [JINJA2_GHSA.id]: JINJA2_GHSA,
  [JINJA2_PYSEC.id]: JINJA2_PYSEC,
  [LODASH_GHSA.id]: LODASH_GHSA,
};
const HITS = {
  "PyPI:jinja2@2.11.2": [JINJA2_GHSA.id, JINJA2_PYSEC.id],
  "npm:lodash@4.17.15": [LODASH_GHSA.id],
};

let fake: FakeOsv | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function serve(options: Partial<FakeOsvOptions> = {}): Promise<FakeOsv> {
  fake = await startFakeOsv({ hits: HITS, records: RECORDS, ...options });
  return fake;
}

describe("queryOsv", () => {
  it("asks one batch, fetches each record once and merges aliases", async () => {
    const osv = await serve();
    const r = await queryOsv([JINJA2, LODASH, JINJA2], { fetch, endpoint: osv.endpoint });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.map((m) => [m.package.name, m.advisory.id, m.fixed])).toEqual([
      ["Jinja2", "GHSA-g3rq-g295-4j3m", "2.11.3"],
      ["lodash", "GHSA-p6mc-m468-83gw", "4.17.19"],
    ]);
    expect(r.value[0]!.duplicates.map((d) => d.id)).toEqual(["PYSEC-2021-66"]);
    expect(r.value[0]!.advisory).toMatchObject({
      source: "osv-api",
      cwes: ["CWE-400"],
      cvss: { vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L" },
    });
    const batches = osv.requests.filter((q) => q.method === "POST");
    expect(batches).toHaveLength(1);
    // PyPI names go out normalized (PEP 503); each package once.
    expect(JSON.parse(batches[0]!.body)).toEqual({
      queries: [
        { package: { ecosystem: "PyPI", name: "jinja2" }, version: "2.11.2" },
        { package: { ecosystem: "npm", name: "lodash" }, version: "4.17.15" },
      ],
    });
    expect(
      osv.requests
        .filter((q) => q.method === "GET")
        .map((q) => q.path)
        .sort(),
    ).toEqual([
      "/v1/vulns/GHSA-g3rq-g295-4j3m",
      "/v1/vulns/GHSA-p6mc-m468-83gw",
      "/v1/vulns/PYSEC-2021-66",
    ]);
  });

  it("splits the queries into batches", async () => {
    const osv = await serve();
    const packages = ["1.0.0", "1.0.1", "1.0.2", "1.0.3", "1.0.4"].map(
      (version): AdvisoryPackage => ({ ecosystem: "npm", name: "left-pad", version }),
    );
    const r = await queryOsv(packages, {
      fetch,
      endpoint: osv.endpoint,
      limits: { batchSize: 2 },
    });
    expect(r).toEqual({ ok: true, value: [] });
    const sizes = osv.requests.map((q) => (JSON.parse(q.body) as { queries: [] }).queries.length);
    expect(sizes).toEqual([2, 2, 1]);
  });

  it("follows next_page_token for a query with more results", async () => {
    const osv = await serve({
      batch: (queries, round) =>
        round === 0
          ? { body: { results: [{ vulns: [{ id: JINJA2_GHSA.id }], next_page_token: "p2" }] } }
          : {
              body: {
                results: queries.map(() => ({ vulns: [{ id: JINJA2_PYSEC.id }] })),
              },
            },
    });
    const r = await queryOsv([JINJA2], { fetch, endpoint: osv.endpoint });
    expect(r.ok && r.value.map((m) => [m.advisory.id, m.duplicates.length])).toEqual([
      ["GHSA-g3rq-g295-4j3m", 1],
    ]);
    const second = JSON.parse(osv.requests[1]!.body) as { queries: { page_token: string }[] };
    expect(second.queries[0]!.page_token).toBe("p2");
  });

  it("does not send a version its ecosystem cannot read", async () => {
    const osv = await serve();
    const r = await queryOsv([{ ecosystem: "npm", name: "x", version: "latest" }, LODASH], {
      fetch,
      endpoint: osv.endpoint,
    });
    expect(r.ok).toBe(true);
    expect(osv.requests[0]!.body).not.toContain("latest");
  });

  it("leaves out a withdrawn record", async () => {
    const osv = await serve({
      record: (id) =>
        id === LODASH_GHSA.id
          ? { body: { ...LODASH_GHSA, withdrawn: "2024-03-01T00:00:00Z" } }
          : undefined,
    });
    const r = await queryOsv([LODASH], { fetch, endpoint: osv.endpoint });
    expect(r).toEqual({ ok: true, value: [] });
  });
});

describe("queryOsv failures", () => {
  const failure = async (options: Partial<FakeOsvOptions>, extra: object = {}) => {
    const osv = await serve(options);
    const r = await queryOsv([JINJA2, LODASH], { fetch, endpoint: osv.endpoint, ...extra });
    return r.ok ? null : r.error;
  };

  it("stops at the deadline", async () => {
    const error = await failure(
      { batch: () => ({ body: { results: [] }, delayMs: 5000 }) },
      { timeoutMs: 200 },
    );
    expect(error?.reason).toBe("timeout");
  });

  it("stops when the caller cancels", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await failure(
      { batch: () => ({ body: { results: [] }, delayMs: 5000 }) },
      { signal: controller.signal },
    );
    expect(error?.reason).toBe("aborted");
  });

  it("refuses a status other than 200", async () => {
    expect(await failure({ batch: () => ({ status: 500, body: "oops" }) })).toMatchObject({
      reason: "http-status",
    });
    expect(await failure({ record: () => ({ status: 404, body: {} }) })).toMatchObject({
      reason: "http-status",
    });
  });

  it("refuses a redirect", async () => {
    const error = await failure({
      batch: () => ({ status: 302, body: "", headers: { location: "http://127.0.0.1:1/" } }),
    });
    expect(error?.reason).toBe("network");
  });

  it("refuses fields of the wrong type instead of coercing them", async () => {
    const wrongId = await failure({
      batch: () => ({ body: { results: [{ vulns: [{ id: 7 }] }, {}] } }),
    });
    expect(wrongId?.reason).toBe("invalid-response");
    const wrongAliases = await failure({
      record: (id) => ({ body: { ...RECORDS[id], aliases: "CVE-2020-28493" } }),
    });
    expect(wrongAliases?.reason).toBe("invalid-response");
    const wrongEvent = await failure({
      record: (id) =>
        id === LODASH_GHSA.id
          ? {
              body: {
                ...LODASH_GHSA,
                affected: [
                  {
                    package: { ecosystem: "npm", name: "lodash" },
                    ranges: [{ type: "SEMVER", events: [{ introduced: 0 }] }],
                  },
                ],
              },
            }
          : undefined,
    });
    expect(wrongEvent?.reason).toBe("invalid-response");
  });

  it("refuses an answer that is not JSON, or has the wrong count of results", async () => {
    expect((await failure({ batch: () => ({ body: "{not json" }) }))?.reason).toBe(
      "invalid-response",
    );
    expect((await failure({ batch: () => ({ body: { results: [{}] } }) }))?.detail).toBe(
      "1 results for 2 queries",
    );
  });

  it("refuses a record under another id", async () => {
    const error = await failure({ record: () => ({ body: LODASH_GHSA }) });
    expect(error).toMatchObject({ reason: "invalid-response" });
    expect(error?.detail).toContain("got GHSA-p6mc-m468-83gw");
  });

  it("bounds the bytes of a record", async () => {
    const error = await failure(
      { record: (id) => ({ body: { ...RECORDS[id], details: "x".repeat(5000) } }) },
      { limits: { maxRecordBytes: 4096 } },
    );
    expect(error?.reason).toBe("too-large");
  });

  it("bounds the number of records", async () => {
    const error = await failure({}, { limits: { maxRecords: 2 } });
    expect(error).toMatchObject({
      reason: "too-many",
      detail: "3 advisories, over the limit of 2",
    });
  });

  it("bounds the pages followed", async () => {
    const error = await failure(
      {
        batch: (queries) => ({
          body: { results: queries.map(() => ({ vulns: [], next_page_token: "again" })) },
        }),
      },
      { limits: { maxPages: 2 } },
    );
    expect(error?.reason).toBe("too-many");
    expect(fake!.requests).toHaveLength(3);
  });

  it("reports a refused connection as a network failure", async () => {
    const r = await queryOsv([JINJA2], { fetch, endpoint: "http://127.0.0.1:1/v1/querybatch" });
    expect(!r.ok && r.error.reason).toBe("network");
  });
});
