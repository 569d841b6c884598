/**
 * @module scoring/profiles/agent
 * The agent-run profile's registry entry (v2): its compute is `computeAgent` (agent.ts: the
 * engineering composite as Objective, Process / Strategy / Recovery panels, Efficiency, then
 * Integrity, Exploit penalties and Calibration, clamped); its public cut hides adjustment
 * citations and cuts its nested Objective as the engineering entry does; its pairing hook is
 * the Objective's, scaled by Objective's weight, plus its own panels' variance; its interval
 * hook nests the Objective's model and holds its trace-derived parts fixed. A panel capped by
 * its trust (the component's `provenance.cap`) stays capped in every replicate and every
 * pairing draw. Pure.
 */
import { ok } from "@bouts/result";
import {
  addPanel,
  createIntervalModel,
  exactOf,
  unreachableComponent,
  type IntervalModel,
} from "../bootstrap.ts";
import type { Breakdown, ComponentBreakdown } from "../breakdown.ts";
import { computeAgent } from "../agent.ts";
import { Exact } from "../exact.ts";
import type { AgentInput } from "../input.ts";
import { panelVariance } from "../pairing-strata.ts";
import { cutBreakdown } from "../public-cut.ts";
import { AGENT_LABELS, AGENT_VERSION, FAMILY_LABELS } from "../tables.ts";
import { engineeringInterval, engineeringPairing, engineeringPublicCut } from "./engineering.ts";
import type { ScoringProfile } from "./profile.ts";

/** The trust cap of a component, when its provenance has one (a breakdown stored before: none). */
const capOf = (c: ComponentBreakdown): number | null => c.provenance?.cap?.max ?? null;

/**
 * What the bootstrap resamples in an agent-run breakdown: its Objective as the engineering
 * profile's model, nested; its panels; everything from the trace and claims fixed.
 */
function agentInterval(b: Breakdown): IntervalModel {
  const m = createIntervalModel();
  for (const c of b.components) {
    const w = Exact.of(c.weight);
    switch (c.key) {
      case "objective": {
        // A breakdown without its nested Objective cannot resample it: its points stay fixed.
        if (!b.objective) {
          m.fixed = m.fixed.add(exactOf(c.contribution));
          break;
        }
        const inner = engineeringInterval(b.objective);
        m.nested = { model: inner, factor: w.div(Exact.HUNDRED) };
        m.resampled.push(...inner.resampled.map((r) => `objective.${r}`));
        m.fixedNotes.push(...inner.fixedNotes.map((r) => `objective.${r}`));
        break;
      }
      case "process":
      case "strategy":
      case "recovery": {
        const cap = capOf(c);
        const exactCap = cap === null ? null : Exact.fromNumber(cap);
        addPanel(m, c.key, c.details.judges, w.div(Exact.HUNDRED), exactCap);
        break;
      }
      case "efficiency":
        m.fixed = m.fixed.add(exactOf(c.contribution));
        m.fixedNotes.push("efficiency (from the trace: one observation, no variation)");
        break;
      case "static":
      case "adversarial":
      case "codeQuality":
      case "deliverables":
      case "security":
      case "stability":
        // Engineering components only appear inside the nested Objective.
        m.fixed = m.fixed.add(exactOf(c.contribution));
        break;
      default:
        return unreachableComponent(c);
    }
  }
  for (const a of b.adjustments) {
    if (a.key === "clamp") continue; // recomputed on every replicate
    m.fixed = m.fixed.add(exactOf(a.points));
    m.fixedNotes.push(`${a.key} (${a.label}: ${a.points.text} points, not resampled)`);
  }
  return m;
}

/** The agent-run profile (docs/scoring.md, "The agent-run profile"). */
export const AGENT_PROFILE: ScoringProfile<AgentInput> = {
  id: "agent",
  version: AGENT_VERSION,
  labels: {
    title: "Agent-run composite",
    name: "agent-run",
    components: AGENT_LABELS,
    families: FAMILY_LABELS,
  },
  compute: computeAgent,
  publicCut: (b) => cutBreakdown(b, engineeringPublicCut),
  pairing: (input, b) => {
    const objective = b.components.find((c) => c.key === "objective");
    if (!b.objective || !objective) return ok(null);
    const part = engineeringPairing(input.objective, b.objective, objective.weight / 100);
    if (part.ok && part.value)
      for (const c of b.components)
        if (c.key === "process" || c.key === "strategy" || c.key === "recovery") {
          const f = c.weight / 100;
          part.value.ownVariance += f * f * panelVariance(c.details.judges, capOf(c));
        }
    return part;
  },
  interval: agentInterval,
};
