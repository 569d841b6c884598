/**
 * @module leaderboard/pages/submission/details/adversarial
 * Adversarial tests: weighted points passed, the per-severity table and the pre-built /
 * generated composition against its target.
 */
import { html, type Html } from "../../html.ts";
import type { PublicDetailsOf } from "./types.ts";

type AdversarialDetails = PublicDetailsOf<"adversarial">;

function renderSeverityTable(d: AdversarialDetails): Html {
  return html`<table class="compact">
    <caption>
      Adversarial tests by severity
    </caption>
    <thead>
      <tr>
        <th scope="col">Severity</th>
        <th scope="col" class="num">Weight</th>
        <th scope="col" class="num">Passed</th>
        <th scope="col" class="num">Tests</th>
      </tr>
    </thead>
    <tbody>
      ${Object.entries(d.bySeverity).map(
        ([severity, counts]) =>
          html`<tr>
            <th scope="row">${severity}</th>
            <td class="num">${d.severityWeights[severity as keyof typeof d.severityWeights]}</td>
            <td class="num">${counts.passed}</td>
            <td class="num">${counts.total}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** Points passed, tests by severity, and the composition. */
export function renderAdversarialDetails(d: AdversarialDetails): Html {
  const { prebuilt, generated, target } = d.composition;
  return html`<p>${d.weightedPassed} of ${d.weightedTotal} weighted points passed.</p>
    ${renderSeverityTable(d)}
    <p>
      Pre-built tests: ${prebuilt.tests} (${prebuilt.weightShare.text}% of the weight, target
      ${target.prebuilt}%); generated tests: ${generated.tests} (${generated.weightShare.text}%,
      target ${target.generated}%).
    </p>`;
}
