import { describe, expect, it } from "vitest";
import {
  findTyposquatTarget,
  isOneEditApart,
  LOOKALIKES_NPM,
  LOOKALIKES_PYPI,
  normalizePythonName,
  POPULAR_NPM,
  POPULAR_PYPI,
} from "../src/index.ts";

describe("the popular lists", () => {
  it.each([
    ["POPULAR_NPM", POPULAR_NPM],
    ["LOOKALIKES_NPM", LOOKALIKES_NPM],
    ["POPULAR_PYPI", POPULAR_PYPI],
    ["LOOKALIKES_PYPI", LOOKALIKES_PYPI],
  ])("%s is sorted and free of duplicates", (_name, list) => {
    expect([...list]).toEqual([...new Set(list)].sort());
  });

  it("holds about two hundred guarded names per registry", () => {
    expect(POPULAR_NPM.length).toBeGreaterThanOrEqual(200);
    expect(POPULAR_PYPI.length).toBeGreaterThanOrEqual(200);
  });

  it("writes npm names in lower case and PyPI names in their PEP 503 form", () => {
    for (const n of [...POPULAR_NPM, ...LOOKALIKES_NPM]) expect(n).toBe(n.toLowerCase());
    for (const n of [...POPULAR_PYPI, ...LOOKALIKES_PYPI]) expect(n).toBe(normalizePythonName(n));
  });

  it("flags no name of either list", () => {
    for (const n of [...POPULAR_NPM, ...LOOKALIKES_NPM])
      expect(findTyposquatTarget(n, "npm"), n).toBeNull();
    for (const n of [...POPULAR_PYPI, ...LOOKALIKES_PYPI])
      expect(findTyposquatTarget(n, "PyPI"), n).toBeNull();
  });
});

describe("isOneEditApart", () => {
  it.each([
    ["express", "expresss", true], // insertion
    ["express", "expres", true], // deletion
    ["express", "exprass", true], // substitution
    ["lodash", "lodahs", true], // adjacent swap
    ["lodash", "ldoash", true], // adjacent swap at the start
    ["lodash", "lodash", false],
    ["lodash", "ladosh", false], // a swap of non-adjacent characters is two edits
    ["react", "preact", true],
    ["react", "reactjs", false],
    ["ab", "ba", true],
    ["", "a", true],
  ])("%s and %s: %s", (a, b, expected) => {
    expect(isOneEditApart(a, b)).toBe(expected);
    expect(isOneEditApart(b, a)).toBe(expected);
  });
});

describe("findTyposquatTarget", () => {
  it.each([
    ["expresss", "express"],
    ["lodahs", "lodash"],
    ["crossenv", "cross-env"],
    ["cross_env", "cross-env"],
    ["c0lors", "colors"],
    ["co1ors", "colors"],
    ["mornent", "moment"], // rn looks like m
    ["axois", "axios"],
    ["Expresss", "express"],
    ["@types/nodee", "@types/node"],
  ])("refuses the npm name %s as a slip of %s", (name, target) => {
    expect(findTyposquatTarget(name, "npm")).toBe(target);
  });

  it.each([
    "express",
    "lodash",
    "preact",
    "hono",
    "zod",
    "react",
    "chalk",
    "request",
    "JSONStream",
  ])("accepts the npm name %s", (name) => {
    expect(findTyposquatTarget(name, "npm")).toBeNull();
  });

  it.each([
    ["reqeusts", "requests"],
    ["requets", "requests"],
    ["nunpy", "numpy"],
    ["python-dateutils", "python-dateutil"],
    ["pythondateutil", "python-dateutil"],
    ["dj4ng0", null], // two edits away: not this check's shape
    ["djang0", "django"],
  ])("judges the PyPI name %s (slip of %s)", (name, target) => {
    expect(findTyposquatTarget(name, "PyPI")).toBe(target);
  });

  it.each([
    "requests",
    "numpy",
    "Requests",
    "python_dateutil",
    "typing_extensions",
    "scapy",
    "scipy",
  ])("accepts the PyPI name %s (PEP 503 spellings included)", (name) => {
    expect(findTyposquatTarget(name, "PyPI")).toBeNull();
  });

  it("keeps the two registries apart: request is npm's, requests PyPI's", () => {
    expect(findTyposquatTarget("request", "npm")).toBeNull();
    expect(findTyposquatTarget("requests", "npm")).toBe("request");
    expect(findTyposquatTarget("requests", "PyPI")).toBeNull();
    expect(findTyposquatTarget("request", "PyPI")).toBe("requests");
  });

  it("never checks names shorter than four characters", () => {
    expect(findTyposquatTarget("zdo", "npm")).toBeNull();
    expect(findTyposquatTarget("ws1", "npm")).toBeNull();
  });

  it("accepts a name on the allowlist, compared as the registry compares names", () => {
    expect(findTyposquatTarget("expresss", "npm", ["expresss"])).toBeNull();
    expect(findTyposquatTarget("Reqeusts", "PyPI", ["reqeusts"])).toBeNull();
    expect(findTyposquatTarget("reqeusts", "PyPI", ["other"])).toBe("requests");
  });
});
