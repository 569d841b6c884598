/**
 * The operator's version page (docs/pages.md, "The version report page") says what state the
 * version is in and offers only the decision the API would accept: a pending version (rescoring,
 * ready) the promote or discard call, a promoted, discarded or QA-refused one none. Its table
 * rows have as many cells as its header.
 */
import { describe, expect, it } from "vitest";
import { renderVersionPage } from "../src/pages/version-page.ts";
import { misalignedRows, readTables } from "./page-structure.ts";

type Report = Parameters<typeof renderVersionPage>[0]["report"];
type State = Report["state"];

function report(state: State, over: Partial<Report> = {}): Report {
  const settled = state !== "rescoring";
  return {
    challengeId: "c-1",
    version: 2,
    baseVersion: 1,
    liveVersion: state === "promoted" ? 2 : 1,
    state,
    note: "adds array-over-object",
    rescores: {
      total: 2,
      queued: settled ? 0 : 1,
      running: 0,
      scored: settled ? 2 : 1,
      failed: 0,
    },
    agents: [
      {
        agentId: "a-1",
        name: "Patient Pat",
        before: { rank: 1, score: 98, unrounded: "98.32", submissionId: "s-1" },
        after: { rank: 2, score: 90, unrounded: "90.1", submissionId: "s-1" },
        rankChange: -1,
        submissions: [
          {
            submissionId: "s-1",
            state: "scored",
            before: { score: 98, unrounded: "98.32" },
            after: { score: 90, unrounded: "90.1" },
            error: null,
            changedTests: [
              {
                suite: "static",
                id: "array-over-object",
                name: "an array replaces a nested object",
                bucket: "edge",
                before: null,
                after: "failed",
              },
            ],
          },
        ],
      },
    ],
    baselines: [],
    ...over,
  };
}

const page = (r: Report) =>
  renderVersionPage({ title: "Deep merge", slug: "deep-merge", report: r })
    .toString()
    .replace(/\s+/g, " ");

const PROMOTE = "POST /v1/challenges/c-1/versions/2/promote";
const DISCARD = "POST /v1/challenges/c-1/versions/2/discard";

describe("the version page", () => {
  it("offers a ready version the promote or discard call", () => {
    const body = page(report("ready"));
    expect(body).toContain("version 2 (ready)");
    expect(body).toMatch(/promote or discard/i);
    expect(body).toContain(PROMOTE);
  });

  it("offers a rescoring version only the discard, and says when it can be promoted", () => {
    const body = page(report("rescoring"));
    expect(body).toContain("Still rescoring");
    expect(body).toContain(DISCARD);
    expect(body).not.toContain(PROMOTE);
  });

  it("sends a ready version with a failed rescore to discard, never to promote", () => {
    const body = page(report("ready", { rescores: { ...report("ready").rescores, failed: 1 } }));
    expect(body).toContain("cannot be promoted");
    expect(body).toContain(DISCARD);
    expect(body).not.toContain(PROMOTE);
  });

  it.each([
    ["promoted", /Promoted: this version is live/],
    ["discarded", /Discarded: this version never went live[^.]*; version 1 is live/],
    ["qa-failed", /Refused by QA: this bundle cannot be promoted/],
  ] as const)("says a %s version is settled and offers no decision", (state, says) => {
    const body = page(report(state));
    expect(body).toContain(`version 2 (${state})`);
    expect(body).toMatch(says);
    expect(body).not.toMatch(/promote or discard/i);
    expect(body).not.toContain("/promote");
    expect(body).not.toContain("/discard");
  });

  it("says when a promoted version was replaced by a later one", () => {
    const body = page(report("promoted", { liveVersion: 3 }));
    expect(body).toContain("Promoted: it was live until version 3 replaced it.");
    expect(body).not.toContain("/promote");
  });

  it("gives every row of its table as many cells as the header", async () => {
    const tables = await readTables(page(report("ready")));
    expect(tables).toHaveLength(1);
    expect(misalignedRows(tables[0]!)).toEqual([]);
  });
});
