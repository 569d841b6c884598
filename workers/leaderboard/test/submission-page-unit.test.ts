/**
 * The submission page's markup, pinned for the worked examples and every edge example of the
 * engine (test/submission-page-cases.ts): a change to how a breakdown is drawn shows up here
 * as a diff of the snapshot files. Markup is compared with whitespace collapsed, as the page
 * tests do, so the templates may be formatted freely.
 */
import { describe, expect, it } from "vitest";
import { renderSubmissionPage } from "../src/pages/submission-page.ts";
import {
  HEURISTIC_JUDGES,
  MODEL_JUDGES,
  pageOf,
  submissionPageCases,
} from "./submission-page-cases.ts";

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

describe("who judged, on the submission page", () => {
  const text = (input: Parameters<typeof pageOf>[1]) =>
    normalize(renderSubmissionPage(pageOf("judged", input)).toString());

  it("marks a heuristic grade as static analysis in the summary, the judges table and the flags", () => {
    const page = text(HEURISTIC_JUDGES);
    expect(page).toContain(
      '<dt>Judged by</dt><dd class="judging judging-heuristic">the offline heuristic panel (static analysis, no model)</dd>',
    );
    expect(page).toContain('<h2 id="judges-heading">Judges</h2>');
    expect(page.match(/judge-kind-heuristic/g)).toHaveLength(3);
    expect(page).toContain("Judged by the offline heuristic panel (static analysis, no model)");
    expect(page).not.toContain("judge-kind-model");
  });

  it("names each model of a model panel and calls nothing heuristic", () => {
    const page = text(MODEL_JUDGES);
    expect(page).toContain('<dd class="judging judging-model">model judges</dd>');
    expect(page).toContain("workers-ai: @cf/example/judge-a");
    expect(page).not.toContain("heuristic");
  });
});
