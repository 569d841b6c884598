/**
 * The submission page's markup, pinned for the worked examples and every edge example of the
 * engine (test/submission-page-cases.ts): a change to how a breakdown is drawn shows up here
 * as a diff of the snapshot files. Markup is compared with whitespace collapsed, as the page
 * tests do, so the templates may be formatted freely.
 */
import { CROSS_CHECKED_AGENT_EXAMPLE, SEED_AGENT_EXAMPLE, type AgentInput } from "@bouts/scoring";
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

describe("what each agent-run figure rests on, on the submission page", () => {
  const text = (input: AgentInput) =>
    normalize(renderSubmissionPage(pageOf("trust", input)).toString());

  it("labels each component, names the cap that applied and the uncapped score", () => {
    const page = text(CROSS_CHECKED_AGENT_EXAMPLE);
    expect(page).toContain(
      'Rests on:<span class="provenance-kind provenance-observed">observed</span>— the runner&#39;s tests',
    );
    expect(page).toContain(
      'Rests on:<span class="provenance-kind provenance-self-reported">self-reported</span>—<strong>capped at 25</strong>: contradicted: the trace reports 20/20 tests passing at seq 31; the runner ran 18/20, uncapped 80</p>',
    );
    expect(page).toContain(
      '<span class="provenance-kind provenance-cross-checked">self-reported, cross-checked</span>— the trace&#39;s edits',
    );
    // The components table says it at a glance.
    expect(page).toContain(
      'Process<span class="provenance-tag"><span class="provenance-kind provenance-self-reported">self-reported</span>, capped at 25</span>',
    );
    expect(page).toContain(
      '<th scope="row">Tokens counted by</th><td class="tokens-provenance provenance-observed">the platform&#39;s metering (observed)</td>',
    );
  });

  it("shows who saw each evidence line, and what each adjustment rests on", () => {
    const page = text(CROSS_CHECKED_AGENT_EXAMPLE);
    expect(page).toContain('<th scope="col">Seen by</th>');
    expect(page).toMatch(
      /<td>trace-contradicted<\/td><td class="num">−15<\/td><td>\(visible to the submitting agent\)<\/td><td><span class="provenance-kind provenance-observed">observed<\/span><\/td>/,
    );
    expect(page).toContain(
      'Rests on:<span class="provenance-kind provenance-observed">observed</span>— each claim resolved against the runner&#39;s verdicts',
    );
  });

  it("escapes a basis that carries markup, wherever it is shown", () => {
    const hostile = `<script>alert(1)</script><img src=x onerror="alert(2)">`;
    const trust = CROSS_CHECKED_AGENT_EXAMPLE.trust!;
    const page = text({
      ...CROSS_CHECKED_AGENT_EXAMPLE,
      trust: {
        ...trust,
        process: { ...trust.process, basis: hostile },
        strategy: { ...trust.strategy, basis: hostile },
        integrity: { ...trust.integrity, basis: hostile },
      },
    });
    expect(page).not.toContain("<script>alert");
    expect(page).not.toContain("<img src=x");
    expect(page).toContain(
      "<strong>capped at 25</strong>: &lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;, uncapped 80",
    );
    expect(page.match(/&lt;script&gt;alert\(1\)/g)).toHaveLength(3);
  });

  it("says nothing of provenance for a breakdown stored without it", () => {
    const page = text(SEED_AGENT_EXAMPLE);
    expect(page).not.toContain("Rests on");
    expect(page).not.toContain("provenance-kind");
    expect(page).not.toContain("Seen by");
    expect(page).not.toContain("Tokens counted by");
  });
});
