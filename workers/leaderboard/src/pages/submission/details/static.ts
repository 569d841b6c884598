/**
 * @module leaderboard/pages/submission/details/static
 * Static tests: how many hidden tests passed, and per category against the intended share.
 * Test names and contents are never in a breakdown, so never here.
 */
import { html, type Html } from "../../html.ts";
import type { PublicDetailsOf } from "./types.ts";

/** The counts, then the per-category table (empty when the run reported no categories). */
export function renderStaticDetails(d: PublicDetailsOf<"static">): Html {
  const categories = Object.entries(d.categories).flatMap(([name, c]) =>
    c ? [{ name, ...c }] : [],
  );
  return html`<p>
      ${d.passed} of ${d.total} hidden tests passed (each all-or-nothing). Test names and contents
      stay hidden.
    </p>
    <table class="compact">
      <caption>
        Static tests by category
      </caption>
      <thead>
        <tr>
          <th scope="col">Category</th>
          <th scope="col" class="num">Passed</th>
          <th scope="col" class="num">Tests</th>
          <th scope="col" class="num">Share of suite</th>
          <th scope="col" class="num">Intended share</th>
        </tr>
      </thead>
      <tbody>
        ${categories.map(
          (c) =>
            html`<tr>
              <th scope="row">${c.name}</th>
              <td class="num">${c.passed}</td>
              <td class="num">${c.total}</td>
              <td class="num">${c.shareOfSuite.text}%</td>
              <td class="num">${c.intendedShare}%</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}
