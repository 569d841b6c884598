/**
 * @module leaderboard/pages/charts
 * Small inline SVG charts for the public pages: a score trajectory, the composition of a
 * weighted sum, and one component's score and contribution. Invariants: every chart is an
 * `role="img"` with a text alternative that states the same numbers (the tables beside them
 * carry the numbers too); colours come from the stylesheet through classes, never inline
 * styles (the Content-Security-Policy allows no inline style); all text is escaped by `html`.
 */
import { html, type Html } from "./html.ts";

/** One point of a trajectory. */
export interface ChartPoint {
  iteration: number;
  score: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/**
 * A chart's `<svg>`: an image whose text alternative, as `aria-label` and `<title>`, is `label`.
 * `attributes` are its own (class, viewBox, size), built by `html` so their values are escaped.
 */
function renderChartSvg(attributes: Html, label: string, body: Html): Html {
  return html`<svg ${attributes} role="img" aria-label="${label}" focusable="false">
    <title>${label}</title>
    ${body}
  </svg>`;
}

/**
 * A sparkline of the score at each iteration (0–100, oldest first), the last point marked.
 * @example renderTrajectoryChart([{ iteration: 1, score: 40 }, { iteration: 2, score: 70 }], "Improving")
 */
export function renderTrajectoryChart(points: readonly ChartPoint[], classLabel: string): Html {
  const w = 96;
  const h = 28;
  const pad = 4;
  const n = points.length;
  const coords = points.map((p, i) => ({
    x: round2(n === 1 ? w / 2 : pad + (i * (w - 2 * pad)) / (n - 1)),
    y: round2(pad + ((100 - clamp(p.score, 0, 100)) / 100) * (h - 2 * pad)),
  }));
  const spoken = points.map((p) => `iteration ${p.iteration}: ${p.score}`).join(", ");
  const label = `${classLabel} trajectory. Scores by iteration: ${spoken || "none"}.`;
  const last = coords[coords.length - 1];
  const polyline =
    n > 1
      ? html`<polyline
          class="spark-line"
          points="${coords.map((c) => `${c.x},${c.y}`).join(" ")}"
        ></polyline>`
      : null;
  const dots = coords.map(
    (c) => html`<circle class="spark-dot" cx="${c.x}" cy="${c.y}" r="1.8"></circle>`,
  );
  const lastDot = last
    ? html`<circle class="spark-last" cx="${last.x}" cy="${last.y}" r="3"></circle>`
    : null;
  return renderChartSvg(
    html`class="spark" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}"`,
    label,
    html`<line class="spark-axis" x1="0" y1="${h - pad}" x2="${w}" y2="${h - pad}"></line>
      ${polyline}${dots}${lastDot}`,
  );
}

/** One component of a weighted sum, as the composition chart draws it. */
export interface CompositionPart {
  label: string;
  /** Weight in percent: the most this component can add. */
  weight: number;
  /** What it added (score × weight / 100). */
  contribution: number;
  contributionText: string;
}

/**
 * The weighted sum as one bar on a 0–100 scale: each component's weight is a light segment,
 * its contribution the dark part of that segment; the dark parts add up to the weighted sum.
 */
export function renderCompositionChart(parts: readonly CompositionPart[], sumText: string): Html {
  let offset = 0;
  const segments = parts.map((p, i) => {
    const x = round2(offset);
    offset += p.weight;
    const weight = round2(clamp(p.weight, 0, 100));
    const filled = round2(clamp(p.contribution, 0, weight));
    return html`<rect
        class="seg-track c${i % 8}"
        x="${x}"
        y="0"
        width="${weight}"
        height="12"
      ></rect
      ><rect class="seg-fill c${i % 8}" x="${x}" y="0" width="${filled}" height="12"></rect
      ><line
        class="seg-edge"
        x1="${x}"
        y1="0"
        x2="${x}"
        y2="12"
        vector-effect="non-scaling-stroke"
      ></line>`;
  });
  const spoken = parts.map((p) => `${p.label} ${p.contributionText} of ${p.weight}`).join("; ");
  const label = `Weighted sum ${sumText} of 100. ${spoken}.`;
  return renderChartSvg(
    html`class="composition" viewBox="0 0 100 12" preserveAspectRatio="none"`,
    label,
    html`<rect class="seg-empty" x="0" y="0" width="100" height="12"></rect> ${segments}`,
  );
}

/**
 * One component on the same 0–100 scale: its score (top bar, of 100) and its contribution
 * (bottom bar, inside a track as long as its weight).
 */
export function renderComponentBars(
  index: number,
  part: CompositionPart & { score: number; scoreText: string },
): Html {
  const score = round2(clamp(part.score, 0, 100));
  const weight = round2(clamp(part.weight, 0, 100));
  const filled = round2(clamp(part.contribution, 0, weight));
  const label = `${part.label}: score ${part.scoreText} of 100; contributes ${part.contributionText} of its ${part.weight} points.`;
  return renderChartSvg(
    html`class="bars" viewBox="0 0 100 16" preserveAspectRatio="none"`,
    label,
    html`<rect class="bar-track" x="0" y="1" width="100" height="6"></rect>
      <rect class="bar-score" x="0" y="1" width="${score}" height="6"></rect>
      <rect class="seg-track c${index % 8}" x="0" y="9" width="${weight}" height="6"></rect>
      <rect class="seg-fill c${index % 8}" x="0" y="9" width="${filled}" height="6"></rect>`,
  );
}

/** One entry of the score-against-cost plot. */
export interface CostChartPoint {
  name: string;
  /** Exact USD text. */
  usd: string;
  /** The unrounded score as a number (0–100). */
  score: number;
  onFrontier: boolean;
}

/**
 * Score (0–100, up) against cost (USD on a log scale, right; $0 at the left edge), every entry
 * a dot, the Pareto frontier's entries joined cheapest first and marked.
 */
export function renderCostChart(
  points: readonly CostChartPoint[],
  formatUsd: (usd: string) => string,
): Html {
  const w = 560;
  const h = 250;
  const left = 44;
  const right = 28;
  const top = 22;
  const bottom = 40;
  const costs = points.map((p) => Number(p.usd)).filter((c) => c > 0);
  const lo = costs.length > 0 ? Math.floor(Math.log10(Math.min(...costs))) : -3;
  const hi = costs.length > 0 ? Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...costs)))) : 0;
  const x = (usd: number) =>
    round2(
      usd <= 0 ? left : left + 8 + ((Math.log10(usd) - lo) / (hi - lo)) * (w - left - right - 8),
    );
  const y = (score: number) =>
    round2(top + ((100 - clamp(score, 0, 100)) / 100) * (h - top - bottom));
  const frontier = points
    .filter((p) => p.onFrontier)
    .sort((a, b) => Number(a.usd) - Number(b.usd) || b.score - a.score);
  const ticks = [];
  for (let d = lo; d <= hi; d++) {
    const tx = x(10 ** d);
    ticks.push(
      html`<line class="cost-grid" x1="${tx}" y1="${top}" x2="${tx}" y2="${h - bottom}"></line
        ><text class="cost-tick" x="${tx}" y="${h - bottom + 16}" text-anchor="middle">
          ${formatUsd(String(10 ** d))}
        </text>`,
    );
  }
  const yTicks = [0, 50, 100].map(
    (s) =>
      html`<line class="cost-grid" x1="${left}" y1="${y(s)}" x2="${w - right}" y2="${y(s)}"></line
        ><text class="cost-tick" x="${left - 6}" y="${y(s) + 4}" text-anchor="end">${s}</text>`,
  );
  const line =
    frontier.length > 1
      ? html`<polyline
          class="cost-frontier"
          points="${frontier.map((p) => `${x(Number(p.usd))},${y(p.score)}`).join(" ")}"
        ></polyline>`
      : null;
  const dots = points.map(
    (p) =>
      html`<circle
        class="cost-dot${p.onFrontier ? " on-frontier" : ""}"
        cx="${x(Number(p.usd))}"
        cy="${y(p.score)}"
        r="${p.onFrontier ? 4.5 : 3.5}"
        ><title>${p.name}: score ${p.score}, ${formatUsd(p.usd)}</title></circle
      >`,
  );
  const spokenFrontier = frontier
    .map((p) => `${p.name} ${p.score} at ${formatUsd(p.usd)}`)
    .join("; ");
  const label =
    `Score against cost of ${points.length} ${points.length === 1 ? "entry" : "entries"}. ` +
    `Pareto frontier, cheapest first: ${spokenFrontier || "none"}.`;
  return renderChartSvg(
    html`class="cost-chart" viewBox="0 0 ${w} ${h}"`,
    label,
    html`${ticks}${yTicks}<line
        class="cost-axis"
        x1="${left}"
        y1="${h - bottom}"
        x2="${w - right}"
        y2="${h - bottom}"
      ></line
      ><line class="cost-axis" x1="${left}" y1="${top}" x2="${left}" y2="${h - bottom}"></line>
      <text class="cost-tick" x="${(left + w - right) / 2}" y="${h - 6}" text-anchor="middle">
        cost (USD, log scale)
      </text>
      <text class="cost-tick" x="${left}" y="12" text-anchor="middle">score</text>
      ${line}${dots}`,
  );
}
