import { spawnSync } from "node:child_process";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { NOT_BLANK, nonBlankText, OperatorReasonSchema } from "../src/index.ts";

/** Every code point of the Basic Multilingual Plane but the surrogates, as one-character strings. */
const BMP = Array.from({ length: 0x10000 }, (_, c) => c)
  .filter((c) => c < 0xd800 || c > 0xdfff)
  .map((c) => String.fromCharCode(c));

describe("text that must say something", () => {
  it("refuses white space alone, whatever white space, and keeps the rest trimmed", () => {
    const title = nonBlankText(200);
    for (const blank of ["", " ", "\f", "\v", "\t\r\n", "\u00a0", "\u2028", "\u3000", "\ufeff"])
      expect(title.safeParse(blank).success, JSON.stringify(blank)).toBe(false);
    // The reason reads as words, not as the pattern.
    expect(title.safeParse("\f").error?.issues[0]?.message).toBe(
      "must hold a character other than white space",
    );
    expect(title.parse("  Deep merge \n")).toBe("Deep merge");
    // A control character that trim keeps is text, here as in the document's pattern.
    expect(title.parse("\u001c")).toBe("\u001c");
  });

  it("bounds the text as sent, not as trimmed", () => {
    const title = nonBlankText(200);
    expect(title.safeParse("a".repeat(200)).success).toBe(true);
    expect(title.safeParse(`${" ".repeat(200)}a`).success).toBe(false);
    expect(title.safeParse(42).success).toBe(false);
    expect(OperatorReasonSchema.safeParse("x".repeat(501)).success).toBe(false);
  });

  it("states its rule in the document: the length and a pattern", () => {
    expect(z.toJSONSchema(nonBlankText(100))).toMatchObject({
      type: "string",
      minLength: 1,
      maxLength: 100,
      pattern: NOT_BLANK.source,
    });
  });

  it("agrees with trim on every character of the Basic Multilingual Plane", () => {
    const differ = BMP.filter((c) => NOT_BLANK.test(c) !== c.trim().length > 0);
    expect(differ.map((c) => c.charCodeAt(0).toString(16))).toEqual([]);
  });

  it("reads the same in Python's re, as a client of the document does (Schemathesis)", () => {
    // The characters the pattern finds, by code point, as Python sees them.
    const script = [
      "import re, sys",
      "p = re.compile(sys.argv[1])",
      "print(','.join(str(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF and not p.search(chr(c))))",
    ].join("\n");
    const r = spawnSync("python3", ["-c", script, NOT_BLANK.source], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const blankInPython = r.stdout.trim().split(",").map(Number);
    const blankInJs = BMP.filter((c) => !NOT_BLANK.test(c)).map((c) => c.charCodeAt(0));
    expect(blankInPython).toEqual(blankInJs);
  });
});
