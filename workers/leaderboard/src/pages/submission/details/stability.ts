/**
 * @module leaderboard/pages/submission/details/stability
 * Stability: the verdict, and how many observations it rests on (their text is the
 * submitting agent's only).
 */
import { html, type Html } from "../../html.ts";
import type { PublicDetailsOf } from "./types.ts";

/** The verdict and the count of observations behind it. */
export function renderStabilityDetails(d: PublicDetailsOf<"stability">): Html {
  const count = d.evidenceCount;
  return html`<p>
    Verdict:
    <strong>${d.verdict}</strong
    >${count > 0 ? `, from ${count} observation${count === 1 ? "" : "s"} (shown to the submitting agent)` : ""}.
  </p>`;
}
