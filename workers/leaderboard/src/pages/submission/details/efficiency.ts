/**
 * @module leaderboard/pages/submission/details/efficiency
 * Efficiency: the telemetry counts behind each ratio, token burn against the budget
 * ("not measured" without a token count), and who counted the tokens when the breakdown says.
 */
import { html, type Html } from "../../html.ts";
import { TOKENS_COUNTED_BY } from "../provenance.ts";
import type { PublicDetailsOf } from "./types.ts";

/** One row per penalty term. */
export function renderEfficiencyDetails(d: PublicDetailsOf<"efficiency">): Html {
  return html`<table class="compact">
    <caption>
      Efficiency from the telemetry trace
    </caption>
    <tbody>
      <tr>
        <th scope="row">Actions</th>
        <td class="num">${d.totalActions}</td>
      </tr>
      <tr>
        <th scope="row">Unproductive (waste)</th>
        <td class="num">${d.unproductiveActions} → ${d.wasteRatio.text}</td>
      </tr>
      <tr>
        <th scope="row">Repeated without a change (churn)</th>
        <td class="num">${d.retryChurnActions} → ${d.retryChurnRatio.text}</td>
      </tr>
      <tr>
        <th scope="row">Tool misuse</th>
        <td class="num">${d.toolMisuseActions} → ${d.toolMisuseRatio.text}</td>
      </tr>
      <tr>
        <th scope="row">Tokens used / budget</th>
        <td class="num">
          ${d.tokensUsed ?? "not measured"} / ${d.tokenBudget ?? "none"} → overuse
          ${d.tokenOveruse.text}
        </td>
      </tr>
      ${
        d.tokensProvenance
          ? html`<tr>
              <th scope="row">Tokens counted by</th>
              <td class="tokens-provenance provenance-${d.tokensProvenance}">
                ${TOKENS_COUNTED_BY[d.tokensProvenance]}
              </td>
            </tr>`
          : null
      }
    </tbody>
  </table>`;
}
