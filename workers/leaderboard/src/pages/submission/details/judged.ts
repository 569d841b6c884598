/**
 * @module leaderboard/pages/submission/details/judged
 * Process, Strategy and Recovery: each judge's 0–100 score and the aggregation rule (the
 * component's formula is the rule's explanation).
 */
import type { Html } from "../../html.ts";
import { renderPanel } from "./judge-panel.ts";
import type { PublicComponentOf, PublicDetailsOf } from "./types.ts";

type JudgedKey = "process" | "strategy" | "recovery";

/** The panel, one score per judge. */
export function renderJudgedDetails(
  d: PublicDetailsOf<JudgedKey>,
  c: PublicComponentOf<JudgedKey>,
): Html {
  return renderPanel(
    {
      judges: d.judges.map((j) => ({ judge: j.judge, score: j.score.text, dimensions: null })),
      rule: d.rule,
      discarded: d.discarded,
      explanation: c.formula,
      note: null,
      degraded: false,
      humanReview: false,
    },
    null,
    `${c.label}: each judge's score`,
  );
}
