import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  checkLinks,
  checkRepository,
  extractAnchors,
  extractLinks,
  formatBrokenLink,
  headingText,
  slugify,
} from "../check-links.ts";

const run = promisify(execFile);
const root = path.join(import.meta.dirname, "../..");
const fixtures = path.join(import.meta.dirname, "fixtures/check-links");
const tsx = path.join(root, "node_modules/.bin/tsx");

const checkLinksCli = async (...args: string[]) => {
  try {
    const r = await run(tsx, ["scripts/check-links.ts", ...args], { cwd: root });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
};

describe("check-links", () => {
  it("finds no broken link or anchor in the repository's markdown", () => {
    expect(checkRepository(root).map(formatBrokenLink)).toEqual([]);
  });

  it("accepts every kind of valid link in the fixture", () => {
    const files = ["good.md", "other.md", "sub/note.md"];
    expect(checkLinks({ root: fixtures, files }).map(formatBrokenLink)).toEqual([]);
  });

  it("reports a missing file and missing anchors, with file and line", () => {
    const broken = checkLinks({ root: fixtures, files: ["broken.md"] });
    expect(broken.map((b) => [b.line, b.target])).toEqual([
      [3, "missing.md"],
      [5, "other.md#no-such-heading"],
      [7, "#nowhere"],
    ]);
    expect(broken[0]!.reason).toBe("missing.md does not exist");
    expect(broken[1]!.reason).toBe("#no-such-heading is not an anchor of other.md");
    expect(broken[2]!.reason).toBe("#nowhere is not an anchor of this file");
  });

  it("exits non-zero and lists the broken links on the command line", async () => {
    const bad = await checkLinksCli("--root", fixtures, "good.md", "broken.md");
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("broken.md:3: missing.md — missing.md does not exist");
    expect(bad.err).toContain("broken.md:5: other.md#no-such-heading");
    expect(bad.err).toContain("check-links: 3 broken link(s)");
    const good = await checkLinksCli("--root", fixtures, "good.md", "other.md");
    expect(good.code).toBe(0);
  });

  it("makes GitHub's anchors from headings", () => {
    expect(slugify(headingText("Efficiency signals (docs/design.md §11)"))).toBe(
      "efficiency-signals-docsdesignmd-11",
    );
    expect(slugify(headingText("`GET /healthz`"))).toBe("get-healthz");
    expect(slugify(headingText("3. Security cliff"))).toBe("3-security-cliff");
    expect(slugify(headingText("[Links](x.md) and **bold** and _em_ and snake_case"))).toBe(
      "links-and-bold-and-em-and-snake_case",
    );
    expect(slugify(headingText("Runner time — per agent"))).toBe("runner-time--per-agent");
    expect([...extractAnchors("# A\n\n## A\n\n## A\n\nText\n===\n")]).toEqual([
      "a",
      "a-1",
      "a-2",
      "text",
    ]);
  });

  it("reads inline links, images, definitions and HTML, not code", () => {
    const md = [
      "[a](one.md) ![b](two.png) [c](<three four.md>) [d](five.md#x 'title')",
      '`[e](six.md)` <a href="seven.md">g</a>',
      "[h]: eight.md",
      "```",
      "[i](nine.md)",
      "```",
    ].join("\n");
    expect(extractLinks(md)).toEqual([
      { target: "one.md", line: 1 },
      { target: "two.png", line: 1 },
      { target: "three four.md", line: 1 },
      { target: "five.md#x", line: 1 },
      { target: "seven.md", line: 2 },
      { target: "eight.md", line: 3 },
    ]);
  });
});
