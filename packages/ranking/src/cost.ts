/**
 * @module ranking/cost
 * What a scored submission cost, in exact arithmetic: tokens per model priced by an operator's
 * table of USD per million tokens, summed in picodollars (10⁻¹² USD) as bigints, so a price of
 * "0.15" times 7 tokens is exactly $0.00000105 and never a float near it. A model the table does
 * not price, or tokens no model was named for, make the cost "not priced" (null) with the
 * reasons listed: a partial sum would look cheaper than the run was. Also the Pareto frontier of
 * score against cost. Pure: no I/O, no clock.
 */

/** Decimal text of USD per million tokens: up to 6 integer and 6 fractional digits. */
export const USD_PER_MTOK_PATTERN = /^\d{1,6}(\.\d{1,6})?$/;
/** Decimal text of a USD amount (a cost filter): up to 9 integer and 12 fractional digits. */
export const USD_AMOUNT_PATTERN = /^\d{1,9}(\.\d{1,12})?$/;

/** One model's prices, as the operator wrote them. */
export interface ModelPrice {
  inputUsdPerMTok: string;
  outputUsdPerMTok: string;
}

/** A price table: one revision, the date its prices are as of, and a price per model. */
export interface PriceTable {
  revision: number;
  /** The date the prices were taken from the providers (YYYY-MM-DD). */
  asOf: string;
  models: Record<string, ModelPrice>;
}

/** A price table with its prices as integers: micro-USD per million tokens. */
export interface CompiledPrices {
  revision: number;
  asOf: string;
  models: ReadonlyMap<string, CompiledPrice>;
}

/** One model's prices in micro-USD per million tokens, with the text they were written as. */
export interface CompiledPrice {
  input: bigint;
  output: bigint;
  text: ModelPrice;
}

/** Tokens one model spent (`model: null`: the telemetry named no model). */
export interface PricedTokens {
  model: string | null;
  tokensIn: number;
  tokensOut: number;
}

/** A priced run: picodollars, or null with the models that could not be priced. */
export interface CostResult {
  picoUsd: bigint | null;
  /** Models without a price (null stands for tokens attributed to no model). */
  unpriced: (string | null)[];
}

const decimalToScaled = (text: string, scale: number): bigint => {
  const [whole, frac = ""] = text.split(".");
  return BigInt(whole!) * 10n ** BigInt(scale) + BigInt(frac.padEnd(scale, "0") || "0");
};

/**
 * Parses USD-per-million-tokens text into micro-USD per million tokens; null when it is not a
 * plain decimal (no sign, exponent or more than 6 decimals).
 * @example parseUsdPerMTok("0.15") // 150000n
 */
export function parseUsdPerMTok(text: string): bigint | null {
  return USD_PER_MTOK_PATTERN.test(text) ? decimalToScaled(text, 6) : null;
}

/**
 * Parses a USD amount into picodollars; null when it is not a plain decimal.
 * @example parseUsdAmount("0.5") // 500000000000n
 */
export function parseUsdAmount(text: string): bigint | null {
  return USD_AMOUNT_PATTERN.test(text) ? decimalToScaled(text, 12) : null;
}

/** Compiles a table's decimal prices; throws a TypeError on a price the schema should have refused. */
export function compilePrices(table: PriceTable): CompiledPrices {
  const models = new Map<string, CompiledPrice>();
  for (const [model, price] of Object.entries(table.models)) {
    const input = parseUsdPerMTok(price.inputUsdPerMTok);
    const output = parseUsdPerMTok(price.outputUsdPerMTok);
    if (input === null || output === null)
      throw new TypeError(`price of ${model} is not a decimal USD per million tokens`);
    models.set(model, { input, output, text: price });
  }
  return { revision: table.revision, asOf: table.asOf, models };
}

/**
 * Prices a run's tokens: Σ tokensIn × input + tokensOut × output, in picodollars (tokens ×
 * micro-USD per million tokens = 10⁻¹² USD). Null tokens (telemetry silent) cost null with
 * nothing unpriced: not measured.
 * @example priceTokens([{ model: "m", tokensIn: 1_000_000, tokensOut: 0 }], prices) // { picoUsd: 3000000000000n, … } at $3/MTok
 */
export function priceTokens(
  tokens: readonly PricedTokens[] | null,
  prices: CompiledPrices | null,
): CostResult {
  if (tokens === null) return { picoUsd: null, unpriced: [] };
  let total = 0n;
  const unpriced: (string | null)[] = [];
  for (const t of tokens) {
    const price = t.model === null ? undefined : prices?.models.get(t.model);
    if (!price) {
      unpriced.push(t.model);
      continue;
    }
    total += BigInt(t.tokensIn) * price.input + BigInt(t.tokensOut) * price.output;
  }
  return unpriced.length > 0 ? { picoUsd: null, unpriced } : { picoUsd: total, unpriced };
}

/**
 * Picodollars as exact decimal USD text, trailing zeros dropped.
 * @example formatUsd(1050000n) // "0.00000105"
 */
export function formatUsd(picoUsd: bigint): string {
  const whole = picoUsd / 10n ** 12n;
  const frac = (picoUsd % 10n ** 12n).toString().padStart(12, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : whole.toString();
}

/** A point of the score-against-cost plot. */
export interface CostPoint {
  id: string;
  picoUsd: bigint;
  /** The unrounded score as a number (the plot's y). */
  score: number;
}

/**
 * The ids of the points on the Pareto frontier: no other point costs at most as much and scores
 * at least as high with one of the two strictly better. Equal points are both on it. In order of
 * cost, cheapest first.
 */
export function computeParetoFrontier(points: readonly CostPoint[]): string[] {
  const sorted = [...points].sort((a, b) =>
    a.picoUsd < b.picoUsd ? -1 : a.picoUsd > b.picoUsd ? 1 : b.score - a.score,
  );
  const frontier: string[] = [];
  let best = -Infinity;
  for (let i = 0; i < sorted.length;) {
    const cost = sorted[i]!.picoUsd;
    const top = sorted[i]!.score; // the group's best score (sorted by score within a cost)
    for (; i < sorted.length && sorted[i]!.picoUsd === cost; i++)
      if (sorted[i]!.score === top && top > best) frontier.push(sorted[i]!.id);
    best = Math.max(best, top);
  }
  return frontier;
}

/** What a run spent, as `@bouts/telemetry` extractUsage reports it (null: no trace). */
export interface UsageLike {
  tokens: { models: readonly PricedTokens[]; tokensIn: number; tokensOut: number } | null;
  wallMs: number | null;
}

/** A submission's cost with the math per model: the wire `CostView` of `@bouts/contracts`. */
export interface CostBreakdown {
  status: "priced" | "not-measured" | "not-priced";
  usd: string | null;
  tokensIn: number | null;
  tokensOut: number | null;
  models: {
    model: string | null;
    tokensIn: number;
    tokensOut: number;
    inputUsdPerMTok: string | null;
    outputUsdPerMTok: string | null;
    usd: string | null;
  }[];
  prices: { revision: number; asOf: string } | null;
  agentWallMs: number | null;
  iterations: number;
}

/**
 * Prices a run model by model and in total. Silent telemetry is `not-measured`; a model the
 * table lacks (or no table) is `not-priced`, with the other models' amounts still shown.
 */
export function computeCost(
  usage: UsageLike | null,
  iterations: number,
  prices: CompiledPrices | null,
): CostBreakdown {
  const tokens = usage?.tokens ?? null;
  const total = priceTokens(tokens?.models ?? null, prices);
  const models = (tokens?.models ?? []).map((t) => {
    const price = t.model === null ? undefined : prices?.models.get(t.model);
    const one = price ? priceTokens([t], prices).picoUsd : null;
    return {
      model: t.model,
      tokensIn: t.tokensIn,
      tokensOut: t.tokensOut,
      inputUsdPerMTok: price?.text.inputUsdPerMTok ?? null,
      outputUsdPerMTok: price?.text.outputUsdPerMTok ?? null,
      usd: one === null ? null : formatUsd(one),
    };
  });
  return {
    status: tokens === null ? "not-measured" : total.picoUsd === null ? "not-priced" : "priced",
    usd: total.picoUsd === null ? null : formatUsd(total.picoUsd),
    tokensIn: tokens?.tokensIn ?? null,
    tokensOut: tokens?.tokensOut ?? null,
    models,
    prices: prices ? { revision: prices.revision, asOf: prices.asOf } : null,
    agentWallMs: usage?.wallMs ?? null,
    iterations,
  };
}
