/**
 * @module leaderboard/pages/submission/provenance
 * What an agent-run figure rests on, as the page says it (docs/scoring.md, "Provenance and
 * trust caps"): a short label per provenance, the basis, and the cap when there is one.
 * Invariant: a basis is the platform's text and may quote the agent's trace, so it reaches the
 * markup only through `html` (escaped), never as markup.
 */
import type { ProvenanceWire, PublicComponentWire } from "@bouts/contracts";
import { html, type Html } from "../html.ts";

type ComponentProvenance = NonNullable<PublicComponentWire["provenance"]>;

/** How the page names each provenance. */
export const PROVENANCE_LABELS: Readonly<Record<ProvenanceWire, string>> = {
  observed: "observed",
  "self-reported": "self-reported",
  "cross-checked": "self-reported, cross-checked",
};

/** The label of a provenance, marked with its kind for the stylesheet. */
export function renderProvenanceLabel(kind: ProvenanceWire): Html {
  return html`<span class="provenance-kind provenance-${kind}">${PROVENANCE_LABELS[kind]}</span>`;
}

/** True when the cap lowered the score (the score is not the uncapped one). */
const capBinds = (c: Pick<PublicComponentWire, "score" | "provenance">): boolean =>
  !!c.provenance?.cap && c.provenance.cap.uncapped.fraction !== c.score.fraction;

/**
 * A component's provenance: "observed — <basis>", or with a cap that lowered the score
 * "self-reported — capped at 25: <basis>, uncapped 72"; nothing for a breakdown without one.
 */
export function renderComponentProvenance(c: PublicComponentWire): Html | null {
  const p: ComponentProvenance | undefined = c.provenance;
  if (!p) return null;
  const basis = p.cap
    ? capBinds(c)
      ? html`<strong>capped at ${p.cap.max}</strong>: ${p.basis}, uncapped ${p.cap.uncapped.text}`
      : html`${p.basis} (cap ${p.cap.max} not reached: uncapped ${p.cap.uncapped.text})`
    : html`${p.basis}`;
  return html`<p class="provenance">Rests on: ${renderProvenanceLabel(p.kind)} — ${basis}</p>`;
}

/** The short tag of the components table: the label, and "capped at N" when the cap bound. */
export function renderProvenanceTag(c: PublicComponentWire): Html | null {
  if (!c.provenance) return null;
  return html`<span class="provenance-tag"
    >${renderProvenanceLabel(c.provenance.kind)}${capBinds(c) ? html`, capped at ${c.provenance.cap!.max}` : null}</span
  >`;
}

/** An adjustment's provenance (integrity, calibration), or nothing. */
export function renderAdjustmentProvenance(
  p: { kind: ProvenanceWire; basis: string } | undefined,
): Html | null {
  if (!p) return null;
  return html`<p class="provenance">Rests on: ${renderProvenanceLabel(p.kind)} — ${p.basis}</p>`;
}

/** Who counted Efficiency's tokens, in words. */
export const TOKENS_COUNTED_BY: Readonly<Record<ProvenanceWire, string>> = {
  observed: "the platform's metering (observed)",
  "self-reported": "the agent's trace (self-reported)",
  "cross-checked": "the agent's trace, cross-checked with the platform's metering",
};
