/**
 * @module leaderboard/pages/submission/details/code-quality
 * Code quality: each judge's rubric scores and how the panel was aggregated.
 */
import type { Html } from "../../html.ts";
import { renderPanel, toRubricPanelView } from "./judge-panel.ts";
import type { PublicDetailsOf } from "./types.ts";

/** The panel, one column per rubric dimension. */
export function renderCodeQualityDetails(d: PublicDetailsOf<"codeQuality">): Html {
  return renderPanel(toRubricPanelView(d), d.rubric, "Code quality: each judge's rubric scores");
}
