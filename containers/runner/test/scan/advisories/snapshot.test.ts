/** The shipped advisory snapshot: it loads, names its sources and licences, and bad bytes are errors. */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  loadShippedSnapshot,
  parseAdvisorySnapshot,
  readAdvisorySnapshot,
} from "../../../src/scan/advisories/index.ts";

describe("the shipped snapshot", () => {
  it("loads once and names its sources with licence and attribution", async () => {
    const first = loadShippedSnapshot();
    expect(loadShippedSnapshot()).toBe(first);
    const r = await first;
    if (!r.ok) throw new Error(r.error.detail);
    const s = r.value;
    expect(s.asOf).toBe("2024-10-10T17:22:00.587Z");
    expect(
      s.sources.map((x) => [x.id, x.licence, x.commit?.slice(0, 7), x.records, x.newest]),
    ).toEqual([
      ["pypa", "CC-BY-4.0", "3ccb612", 2661, "2024-10-10T17:22:00.587Z"],
      ["nodejs-security-wg", "MIT", "f1288d0", 467, "2020-07-13T00:00:00.000Z"],
    ]);
    expect(s.sources[1]!.attribution).toContain("Older advisories only");
    expect(s.sources[1]!.notice).toContain("Copyright (c) Node.js Foundation");
    const bySource = (id: string) => s.advisories.filter((a) => a.source === id).length;
    expect([bySource("pypa"), bySource("nodejs-security-wg")]).toEqual([2651, 467]);
  });

  it("holds only normalized PyPI names and bounded summaries", async () => {
    const r = await loadShippedSnapshot();
    if (!r.ok) throw new Error(r.error.detail);
    for (const a of r.value.advisories) {
      expect(a.summary.length).toBeLessThanOrEqual(200);
      for (const e of a.affected)
        if (e.ecosystem === "PyPI") expect(e.package).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
  });
});

describe("parseAdvisorySnapshot", () => {
  const minimal = {
    format: 1,
    asOf: "2024-01-01T00:00:00.000Z",
    sources: [
      {
        id: "test",
        name: "test",
        url: "https://example.org/",
        licence: "MIT",
        attribution: "test data",
        records: 0,
      },
    ],
    advisories: [],
  };
  const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

  it("reads plain and gzipped JSON alike", () => {
    expect(parseAdvisorySnapshot(bytes(minimal))).toEqual({ ok: true, value: minimal });
    expect(parseAdvisorySnapshot(gzipSync(bytes(minimal)))).toEqual({ ok: true, value: minimal });
  });

  it("refuses what is not a snapshot, naming the field", () => {
    const r = parseAdvisorySnapshot(bytes({ ...minimal, asOf: "yesterday" }), "x.json");
    expect(r).toMatchObject({ ok: false, error: { reason: "invalid", file: "x.json" } });
    expect(!r.ok && r.error.detail).toMatch(/^asOf:/);
    expect(parseAdvisorySnapshot(bytes("[]").subarray(1))).toMatchObject({
      ok: false,
      error: { reason: "invalid" },
    });
    expect(parseAdvisorySnapshot(new Uint8Array([0x1f, 0x8b, 1, 2]))).toMatchObject({
      ok: false,
      error: { reason: "unreadable" },
    });
  });

  it("refuses a missing file as unreadable, never as an empty snapshot", async () => {
    expect(await readAdvisorySnapshot("/nonexistent/snapshot.json.gz")).toMatchObject({
      ok: false,
      error: { reason: "unreadable" },
    });
  });
});
