/**
 * @module leaderboard/pages/submission/details/objective
 * Objective: the engineering composite of the same submission, whose own breakdown the page
 * draws below (`#objective`).
 */
import { html, type Html } from "../../html.ts";
import type { PublicDetailsOf } from "./types.ts";

/** A pointer to the nested engineering breakdown. */
export function renderObjectiveDetails(d: PublicDetailsOf<"objective">): Html {
  return html`<p>
    The engineering composite of this submission, unrounded (it rounds to ${d.engineeringRounded}).
    Its own breakdown is <a href="#objective">below</a>.
  </p>`;
}
