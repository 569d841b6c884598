/**
 * @module leaderboard/pages/submission/details/security
 * Security: findings and deductions per severity, each finding's CWE and severity (its
 * location is the submitting agent's only, and not in the public view), the checks that did
 * not run.
 */
import { html, type Html } from "../../html.ts";
import type { PublicDetailsOf } from "./types.ts";

/** The severity table, the findings and what was not measured. */
export function renderSecurityDetails(d: PublicDetailsOf<"security">): Html {
  const severities = Object.keys(d.deductions) as (keyof typeof d.deductions)[];
  return html`<table class="compact">
      <caption>
        Findings by severity
      </caption>
      <thead>
        <tr>
          <th scope="col">Severity</th>
          <th scope="col" class="num">Findings</th>
          <th scope="col" class="num">Deduction each</th>
        </tr>
      </thead>
      <tbody>
        ${severities.map(
          (severity) =>
            html`<tr>
              <th scope="row">${severity}</th>
              <td class="num">${d.counts[severity]}</td>
              <td class="num">${d.deductions[severity]}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      d.findings.length > 0
        ? html`<table class="compact">
            <caption>
              Findings (locations are shown to the submitting agent only)
            </caption>
            <thead>
              <tr>
                <th scope="col">CWE</th>
                <th scope="col">Severity</th>
                <th scope="col" class="num">Deduction</th>
              </tr>
            </thead>
            <tbody>
              ${d.findings.map(
                (f) =>
                  html`<tr>
                    <td>${f.cwe ?? "—"}</td>
                    <td>${f.severity}</td>
                    <td class="num">${f.deduction}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : html`<p>No findings.</p>`
    }
    ${d.notMeasured.length > 0 ? html`<p class="note">Not measured: ${d.notMeasured.join(", ")}.</p>` : null}`;
}
