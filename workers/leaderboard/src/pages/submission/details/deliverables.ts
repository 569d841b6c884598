/**
 * @module leaderboard/pages/submission/details/deliverables
 * Deliverables: each one's score, with its judge panel when it was submitted, or why it scored
 * 0 without a judge (missing, or a placeholder).
 */
import { html, type Html } from "../../html.ts";
import { renderPanel, toRubricPanelView } from "./judge-panel.ts";
import type { PublicDetailsOf } from "./types.ts";

const UNJUDGED = { missing: "Missing", placeholder: "A placeholder" } as const;

/** One block per deliverable. */
export function renderDeliverablesDetails(d: PublicDetailsOf<"deliverables">): Html[] {
  return d.items.map(
    (item) =>
      html`<div class="deliverable">
        <h4><code>${item.name}</code>: ${item.score.text}</h4>
        ${
          item.status === "submitted"
            ? renderPanel(
                toRubricPanelView(item),
                d.rubric,
                `${item.name}: each judge's rubric scores`,
              )
            : html`<p>${UNJUDGED[item.status]}: scored 0 without a judge.</p>`
        }
      </div>`,
  );
}
