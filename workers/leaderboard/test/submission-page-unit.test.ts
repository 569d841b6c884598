/**
 * The submission page's markup, pinned for the worked examples and every edge example of the
 * engine (test/submission-page-cases.ts): a change to how a breakdown is drawn shows up here
 * as a diff of the snapshot files. Markup is compared with whitespace collapsed, as the page
 * tests do, so the templates may be formatted freely.
 */
import { describe, expect, it } from "vitest";
import { renderSubmissionPage } from "../src/pages/submission-page.ts";
import { submissionPageCases } from "./submission-page-cases.ts";

/** Markup with whitespace collapsed and none beside tags. */
function normalize(markup: string): string {
  return markup
    .replace(/\s+/g, " ")
    .replace(/\s*>\s*/g, ">")
    .replace(/\s+</g, "<");
}

describe("the submission page markup", () => {
  for (const [name, data] of submissionPageCases()) {
    it(`stays the same for ${name}`, () => {
      const markup = normalize(renderSubmissionPage(data).toString()).replaceAll("><", ">\n<");
      expect(markup).toMatchSnapshot();
    });
  }
});
