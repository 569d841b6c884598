/**
 * @module contracts/cost
 * The wire shapes of cost: what a run spent as its telemetry says (tokens per model, agent
 * wall time), the operator's price table (USD per million tokens per model, with an as-of
 * date), and the cost view that the board, the submission and the API show. Prices and
 * amounts are decimal text, parsed exactly by `@bouts/ranking` (cost.ts) into integers.
 * Pure: zod only.
 */
import { z } from "zod";

const count = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Tokens one model spent over a run; `model: null`: no event or header named it. */
export const ModelUsageSchema = z.strictObject({
  model: z.string().min(1).max(200).nullable(),
  tokensIn: count,
  tokensOut: count,
  events: count,
});

/** What a run spent (`@bouts/telemetry` extractUsage); `tokens: null` = not measured. */
export const RunUsageSchema = z.strictObject({
  tokens: z
    .strictObject({
      models: z.array(ModelUsageSchema).max(1000),
      tokensIn: count,
      tokensOut: count,
      events: count,
    })
    .nullable(),
  wallMs: count.nullable(),
  /**
   * Who counted the tokens: the platform's metering gateway (`gateway`, or Cloudflare AI Gateway
   * `ai-gateway`) or the agent's own trace (`trace`); absent in usage stored before: the trace.
   */
  tokensSource: z.enum(["gateway", "ai-gateway", "trace"]).optional(),
});
export type RunUsage = z.infer<typeof RunUsageSchema>;

/** Decimal USD per million tokens (same grammar as `@bouts/ranking` USD_PER_MTOK_PATTERN). */
export const UsdPerMTokSchema = z
  .string()
  .regex(
    /^\d{1,6}(\.\d{1,6})?$/,
    'a plain decimal of USD per million tokens: up to 6 decimals, no sign or exponent, e.g. "0.15"',
  );

/** A USD amount (a cost filter): up to 12 decimals (same grammar as USD_AMOUNT_PATTERN). */
export const UsdAmountSchema = z
  .string()
  .regex(
    /^\d{1,9}(\.\d{1,12})?$/,
    'a plain decimal USD amount: up to 12 decimals, no sign or exponent, e.g. "0.25"',
  );

/** One model's prices. */
export const ModelPriceSchema = z.strictObject({
  inputUsdPerMTok: UsdPerMTokSchema,
  outputUsdPerMTok: UsdPerMTokSchema,
});

/** The body an operator sends to set a new price table revision. */
export const PriceTableBodySchema = z.strictObject({
  /** The date the prices were taken from the providers. */
  asOf: z.iso.date(),
  models: z
    .record(z.string().min(1).max(200), ModelPriceSchema)
    .refine((m) => Object.keys(m).length <= 500, "at most 500 models"),
});
export type PriceTableBody = z.infer<typeof PriceTableBodySchema>;

/** A stored price table revision. */
export const PriceTableSchema = PriceTableBodySchema.extend({
  revision: z.int().min(1),
  setAt: z.iso.datetime(),
});
export type PriceTableWire = z.infer<typeof PriceTableSchema>;

/**
 * A price table revision as the API answers it, both where it is read (`GET /v1/pricing`, the
 * leaderboard role) and where it is set (`PUT /v1/pricing`, the ingest role). Its zod `id` is
 * its one name in the OpenAPI document (`PriceTable`), so neither role names it again.
 */
export const PriceTableWireSchema = PriceTableSchema.meta({ id: "PriceTable" });

/** Whether a cost could be given: priced, telemetry silent, or a model without a price. */
export const COST_STATUSES = ["priced", "not-measured", "not-priced"] as const;
export type CostStatus = (typeof COST_STATUSES)[number];

/** What a scored submission cost, with the math shown per model. */
export const CostViewSchema = z.strictObject({
  status: z.enum(COST_STATUSES),
  /** Exact USD as decimal text; null unless priced. */
  usd: z.string().nullable(),
  tokensIn: count.nullable(),
  tokensOut: count.nullable(),
  models: z.array(
    z.strictObject({
      model: z.string().nullable(),
      tokensIn: count,
      tokensOut: count,
      inputUsdPerMTok: z.string().nullable(),
      outputUsdPerMTok: z.string().nullable(),
      usd: z.string().nullable(),
    }),
  ),
  /** The price table revision used, and the date its prices are as of; null when none is set. */
  prices: z.strictObject({ revision: z.int().min(1), asOf: z.string() }).nullable(),
  /** The agent's wall time from its trace; null when not measured. */
  agentWallMs: count.nullable(),
  /** Submissions the agent used up to this one. */
  iterations: z.int().min(1),
});
export type CostView = z.infer<typeof CostViewSchema>;
