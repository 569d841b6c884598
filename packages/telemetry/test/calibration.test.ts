/**
 * Confidence statements from text and traces, and their resolution against test outcomes
 * into the engine's calibration claims.
 */
import { computeCalibration } from "@bouts/scoring";
import { describe, expect, it } from "vitest";
import {
  extractConfidenceStatements,
  extractTraceClaims,
  resolveClaims,
  resolveStatedConfidence,
  type TestOutcomes,
} from "../src/index.ts";
import { buildTrace, message } from "./build.ts";

describe("resolveStatedConfidence", () => {
  it.each([
    ["I'm 90% confident the fix holds.", 0.9],
    ["I am 75 % sure about the cache.", 0.75],
    ["Fixed with 60% confidence.", 0.6],
    ["Confidence: 0.7", 0.7],
    ["confidence = .85 that it works", 0.85],
    ["Confidence: 80%", 0.8],
    ["confidence level of 95%", 0.95],
    ["I'm not sure about the retry logic.", "uncertain"],
    ["I am unsure whether expiry is handled.", "uncertain"],
    ["Not entirely certain this covers unicode.", "uncertain"],
    ["I'm not 100% sure the race is gone.", "uncertain"],
    ["Confidence: low", "uncertain"],
  ])("reads %j as %j", (sentence, expected) => {
    expect(resolveStatedConfidence(sentence)).toBe(expected);
  });

  it.each([
    "Coverage is 90% of lines.",
    "Confidence intervals are computed by the library.",
    "I'm sure.",
    "confidence: 1.5",
    "I'm 150% confident.",
  ])("finds no statement in %j", (sentence) => {
    expect(resolveStatedConfidence(sentence)).toBeNull();
  });
});

describe("extractConfidenceStatements", () => {
  it("makes one claim per stating sentence, numbered in text order, naming mentioned tests", () => {
    const text = [
      "# Notes",
      "Fixed the token check. I'm 90% confident auth-expiry now passes.",
      "I'm not sure about auth-expiry-2 under load.",
      "Coverage went up.",
    ].join("\n");
    expect(
      extractConfidenceStatements(text, { testIds: ["auth-expiry", "auth-expiry-2", "other"] }),
    ).toEqual([
      {
        id: "parsed-1",
        statement: "I'm 90% confident auth-expiry now passes.",
        confidence: 0.9,
        tests: ["auth-expiry"],
      },
      {
        id: "parsed-2",
        statement: "I'm not sure about auth-expiry-2 under load.",
        confidence: "uncertain",
        tests: ["auth-expiry-2"],
      },
    ]);
  });

  it("returns nothing for text without statements", () => {
    expect(extractConfidenceStatements("All done. Tests pass.")).toEqual([]);
  });
});

describe("extractTraceClaims", () => {
  it("takes structured message claims first and parses final reports without them", () => {
    const trace = buildTrace([
      message(3, "assistant", {
        confidence: [{ statement: "parser fixed", confidence: 0.8, tests: ["p1"] }],
      }),
      message(9, "assistant", { final: true, text: "I'm 70% confident the rest works." }),
      message(10, "user", { final: true, text: "I'm 99% confident." }),
    ]);
    expect(extractTraceClaims(trace)).toEqual([
      { id: "trace-3-1", statement: "parser fixed", confidence: 0.8, tests: ["p1"] },
      { id: "trace-9-1", statement: "I'm 70% confident the rest works.", confidence: 0.7 },
    ]);
  });
});

const outcomes: TestOutcomes = {
  static: [
    { id: "auth-expiry", status: "passed" },
    { id: "auth-bypass", status: "failed" },
    { id: "parse", status: "passed" },
  ],
  adversarial: [{ id: "sqli", status: "passed" }],
};

describe("resolveClaims", () => {
  it("judges a claim by the tests it names, citing their outcomes", () => {
    const r = resolveClaims(
      {
        structured: [
          { id: "a", statement: "expiry fixed", confidence: 0.9, tests: ["auth-expiry", "sqli"] },
          { id: "b", statement: "bypass fixed", confidence: 0.9, tests: ["auth-bypass"] },
        ],
      },
      outcomes,
    );
    expect(r).toEqual({
      source: "structured",
      claims: [
        { id: "a", confidence: 0.9, correct: true, basis: "auth-expiry: passed, sqli: passed" },
        { id: "b", confidence: 0.9, correct: false, basis: "auth-bypass: failed" },
      ],
      unresolved: [],
    });
  });

  it("judges a claim naming no tests by the whole static suite", () => {
    const r = resolveClaims(
      { parsed: [{ id: "p", statement: "all good", confidence: "uncertain" }] },
      outcomes,
    );
    expect(r.claims).toEqual([
      { id: "p", confidence: "uncertain", correct: false, basis: "static suite: 2/3 passed" },
    ]);
    const green = resolveClaims(
      { parsed: [{ id: "p", statement: "all good", confidence: 0.95 }] },
      { static: [{ id: "x", status: "passed" }] },
    );
    expect(green.claims[0]?.correct).toBe(true);
  });

  it("uses structured claims and ignores parsed ones when both exist", () => {
    const r = resolveClaims(
      {
        structured: [{ id: "s", statement: "x", confidence: 0.9 }],
        parsed: [{ id: "p", statement: "y", confidence: 0.1 }],
      },
      outcomes,
    );
    expect(r.source).toBe("structured");
    expect(r.claims.map((c) => c.id)).toEqual(["s"]);
  });

  it("leaves claims unresolved when they cannot be decided, and says why", () => {
    const r = resolveClaims(
      {
        structured: [
          { id: "u", statement: "x", confidence: 0.9, tests: ["nope"] },
          { id: "u", statement: "dup", confidence: 0.9 },
          { id: "bad id!", statement: "x", confidence: 0.9 },
          { id: "v", statement: "x", confidence: 0.9 },
        ],
      },
      { static: [] },
    );
    expect(r.claims).toEqual([]);
    expect(r.unresolved.map((u) => [u.id, u.reason])).toEqual([
      ["u", "unknown-test"],
      ["u", "duplicate-id"],
      ["bad id!", "invalid-claim"],
      ["v", "no-static-tests"],
    ]);
  });

  it("answers source none and no claims when there are none", () => {
    expect(resolveClaims({}, outcomes)).toEqual({ source: "none", claims: [], unresolved: [] });
  });

  it("feeds the engine: a confident right claim +3, a hedged wrong one +2", () => {
    const parsed = extractConfidenceStatements(
      "I'm 90% confident auth-expiry passes. I'm not sure auth-bypass is fixed.",
      { testIds: outcomes.static.map((t) => t.id) },
    );
    const r = resolveClaims({ parsed }, outcomes);
    const cal = computeCalibration({ claims: r.claims });
    expect(cal.ok && cal.value.points.text).toBe("5");
  });
});

describe("resolveClaims — only outcomes the agent could not have seen", () => {
  /** Claims written after reading the public report of identical code: every one right. */
  const copied = [
    { id: "c1", statement: "create works", confidence: 0.95, tests: ["auth-expiry"] },
    { id: "c2", statement: "sqli is blocked", confidence: 0.9, tests: ["sqli"] },
    {
      id: "c3",
      statement: "bypass may remain",
      confidence: "uncertain" as const,
      tests: ["auth-bypass"],
    },
    { id: "c4", statement: "not everything passes", confidence: "uncertain" as const },
  ];
  const points = (claims: Parameters<typeof computeCalibration>[0]["claims"]) => {
    const cal = computeCalibration({ claims });
    if (!cal.ok) throw new Error("calibration refused");
    return cal.value.points.text;
  };

  it("leaves copied claims on code scored before out as outcome-visible: calibration 0", () => {
    const r = resolveClaims({ structured: copied }, outcomes, {
      visibility: { codeScoredBefore: true, privateTestIds: new Set() },
    });
    expect(r.claims).toEqual([]);
    expect(r.unresolved.map((u) => [u.id, u.reason])).toEqual([
      ["c1", "outcome-visible"],
      ["c2", "outcome-visible"],
      ["c3", "outcome-visible"],
      ["c4", "outcome-visible"],
    ]);
    expect(r.unresolved[0]?.detail).toBe(
      "identical code was scored before, and the public report showed auth-expiry",
    );
    expect(points(r.claims)).toBe("0");
  });

  it("counts the same claims on code not scored before", () => {
    const r = resolveClaims({ structured: copied }, outcomes, {
      visibility: { codeScoredBefore: false, privateTestIds: new Set() },
    });
    expect(r.claims.map((c) => c.id)).toEqual(["c1", "c2", "c3", "c4"]);
    expect(r.unresolved).toEqual([]);
    expect(points(r.claims)).toBe("5");
  });

  it("counts claims about private tests even on code scored before", () => {
    const r = resolveClaims({ structured: copied }, outcomes, {
      visibility: { codeScoredBefore: true, privateTestIds: new Set(["sqli", "auth-bypass"]) },
    });
    expect(r.claims.map((c) => c.id)).toEqual(["c2", "c3"]);
    expect(r.unresolved.map((u) => u.id)).toEqual(["c1", "c4"]);
    // A claim naming a private and a public test: the public one's outcome was visible.
    const mixed = resolveClaims(
      {
        structured: [{ id: "m", statement: "x", confidence: 0.9, tests: ["sqli", "auth-expiry"] }],
      },
      outcomes,
      { visibility: { codeScoredBefore: true, privateTestIds: new Set(["sqli"]) } },
    );
    expect(mixed.unresolved).toEqual([
      {
        id: "m",
        reason: "outcome-visible",
        detail: "identical code was scored before, and the public report showed auth-expiry",
      },
    ]);
  });

  it("still lets structured claims win over parsed ones, and keeps the other reasons first", () => {
    const r = resolveClaims(
      {
        structured: [{ id: "u", statement: "x", confidence: 0.9, tests: ["nope"] }],
        parsed: [{ id: "p", statement: "y", confidence: 0.9 }],
      },
      outcomes,
      { visibility: { codeScoredBefore: true, privateTestIds: new Set() } },
    );
    expect(r.source).toBe("structured");
    expect(r.unresolved.map((u) => [u.id, u.reason])).toEqual([["u", "unknown-test"]]);
  });
});
