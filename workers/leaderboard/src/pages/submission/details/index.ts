/**
 * @module leaderboard/pages/submission/details
 * How each component's `details` are drawn: one renderer per component key, in a map that
 * fails to compile when a key has none. Invariants: renderers read the public view only
 * (no finding locations, stability evidence or citations) through the contract's types, so
 * nothing a breakdown does not publish can reach the page; every text is escaped by `html`.
 */
import type { PublicComponentWire } from "@bouts/contracts";
import type { Child } from "../../html.ts";
import { renderAdversarialDetails } from "./adversarial.ts";
import { renderCodeQualityDetails } from "./code-quality.ts";
import { renderDeliverablesDetails } from "./deliverables.ts";
import { renderEfficiencyDetails } from "./efficiency.ts";
import { renderJudgedDetails } from "./judged.ts";
import { renderObjectiveDetails } from "./objective.ts";
import { renderSecurityDetails } from "./security.ts";
import { renderStabilityDetails } from "./stability.ts";
import { renderStaticDetails } from "./static.ts";
import type { ComponentKey, DetailsRenderer, PublicComponentOf } from "./types.ts";

type DetailsRenderers = { [K in ComponentKey]: DetailsRenderer<K> };

const RENDERERS = {
  static: renderStaticDetails,
  adversarial: renderAdversarialDetails,
  codeQuality: renderCodeQualityDetails,
  deliverables: renderDeliverablesDetails,
  security: renderSecurityDetails,
  stability: renderStabilityDetails,
  objective: renderObjectiveDetails,
  process: renderJudgedDetails,
  strategy: renderJudgedDetails,
  recovery: renderJudgedDetails,
  efficiency: renderEfficiencyDetails,
} satisfies DetailsRenderers;

function renderWith<K extends ComponentKey>(c: PublicComponentOf<K>): Child {
  const render = (RENDERERS as DetailsRenderers)[c.key];
  return render(c.details, c);
}

/** The details of one component, by its key's renderer. */
export function renderComponentDetails(c: PublicComponentWire): Child {
  return renderWith(c);
}
