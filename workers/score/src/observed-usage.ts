/**
 * @module score/observed-usage
 * The model usage the platform observed for one agent on one challenge over a window of time,
 * read from the source the score role's configuration names (GATEWAY_USAGE_SOURCE, docs/gateway.md):
 * none, the metering gateway's own D1 record, or Cloudflare AI Gateway's logs API. Invariants: no
 * call seen is null, never zero; a call counts only when it started after `from` and at or before
 * `to` and names exactly this agent and challenge; a logged token count is taken only when it is
 * a non-negative safe integer; the logs are read a bounded number of pages, each with a deadline;
 * any failure to read is `usage-unavailable`, for the caller to retry, never a guess.
 */
import { buildGatewayEntryKey, matchesGatewayMetadata } from "@bouts/contracts";
import { createDb, sumGatewayUsage, type GatewayUsageQuery } from "@bouts/db";
import { err, ok, type Result } from "@bouts/result";
import type { ObservedModelUsage, ObservedUsage } from "@bouts/telemetry";
import { z } from "zod";
import { readScoreConfig, type ScoreConfig } from "./config.ts";

/** Whose calls, over which window (epoch ms: after `from`, or from the start when null; up to `to`). */
export type ObservedUsageQuery = GatewayUsageQuery;

/** The observed usage could not be read now; reading again later may succeed. */
export interface ObservedUsageError {
  reason: "usage-unavailable";
  retryable: true;
  detail: string;
}

/** Logs asked for per page of AI Gateway's logs API (its largest page). */
export const AI_GATEWAY_LOGS_PER_PAGE = 50;
/** The most pages read for one window: past 1 000 logged calls the usage is unavailable. */
export const AI_GATEWAY_MAX_PAGES = 20;
/** The deadline of one page. */
export const AI_GATEWAY_PAGE_TIMEOUT_MS = 15_000;

/** The settings the reader needs (the score configuration's `observedUsage`). */
export type ObservedUsageSettings = ScoreConfig["observedUsage"];

/**
 * The usage observed for `query`, from the source the configuration of `env` names.
 * @example
 * const usage = await readObservedUsage(env, { agentId, challengeId, from: previousReceivedAt, to: receivedAt });
 * if (!usage.ok) return retryLater(usage.error.detail);
 */
export async function readObservedUsage(
  env: { DB: D1Database },
  query: ObservedUsageQuery,
  options: { fetch?: typeof fetch } = {},
): Promise<Result<ObservedUsage | null, ObservedUsageError>> {
  const settings = readScoreConfig(env).observedUsage;
  switch (settings.source) {
    case "none":
      return ok(null);
    case "gateway":
      try {
        return ok(await sumGatewayUsage(createDb(env.DB), query));
      } catch (e) {
        return unavailable(`the gateway's record could not be read: ${describe(e)}`);
      }
    case "ai-gateway":
      return readAiGatewayUsage(settings, query, options.fetch ?? fetch);
  }
}

// ─── AI Gateway's logs API ───

const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** One logged call: the fields read, each checked; every other field is ignored. */
const LogSchema = z.looseObject({
  id: z.string(),
  created_at: z.string(),
  model: z.string().nullish(),
  tokens_in: z.unknown(),
  tokens_out: z.unknown(),
  metadata: z.unknown(),
});

/** A page of `GET …/ai-gateway/gateways/{gateway_id}/logs`, in Cloudflare's API envelope. */
const LogsPageSchema = z.looseObject({
  success: z.literal(true),
  result: z.array(LogSchema),
});

type Log = z.infer<typeof LogSchema>;

/**
 * The usage AI Gateway logged for the entry within the window. Asks for the entry's calls
 * (`filters` on the metadata value the gateway sets), newest first, page by page until a page
 * is short or reaches back past `from`; then keeps only the calls whose metadata names exactly
 * this agent and challenge and whose `created_at` lies in the window.
 */
export async function readAiGatewayUsage(
  settings: ObservedUsageSettings,
  q: ObservedUsageQuery,
  fetcher: typeof fetch,
): Promise<Result<ObservedUsage | null, ObservedUsageError>> {
  const { accountId, gatewayId, apiToken, logsApiUrl } = settings;
  if (!accountId || !gatewayId || !apiToken)
    return unavailable("AI Gateway's logs are not configured (GATEWAY_LOGS_*)");
  const base = `${logsApiUrl}/accounts/${encodeURIComponent(accountId)}/ai-gateway/gateways/${encodeURIComponent(gatewayId)}/logs`;
  const kept: Log[] = [];
  for (let page = 1; page <= AI_GATEWAY_MAX_PAGES; page++) {
    const url = new URL(base);
    url.searchParams.set("page", String(page));
    url.searchParams.set("per_page", String(AI_GATEWAY_LOGS_PER_PAGE));
    url.searchParams.set("order_by", "created_at");
    url.searchParams.set("order_by_direction", "desc");
    // The form Cloudflare's SDKs send a filter in (qs: allowDots, arrayFormat "repeat").
    url.searchParams.append("filters.key", "metadata.value");
    url.searchParams.append("filters.operator", "eq");
    url.searchParams.append("filters.value", buildGatewayEntryKey(q));
    const read = await readPage(url, apiToken, fetcher);
    if (!read.ok) return read;
    let reachedFrom = false;
    for (const log of read.value) {
      const at = Date.parse(log.created_at);
      if (Number.isNaN(at))
        return unavailable(`a logged call has no readable created_at (${log.id})`);
      if (q.from !== null && at <= q.from) reachedFrom = true;
      // The filter narrows the list; the metadata is what decides whose call it is.
      if (!matchesGatewayMetadata(log.metadata, q)) continue;
      if (at <= q.to && (q.from === null || at > q.from)) kept.push(log);
    }
    if (read.value.length < AI_GATEWAY_LOGS_PER_PAGE || reachedFrom) return ok(summarize(kept, q));
  }
  return unavailable(
    `more than ${AI_GATEWAY_MAX_PAGES * AI_GATEWAY_LOGS_PER_PAGE} logged calls to read for one window`,
  );
}

async function readPage(
  url: URL,
  token: string,
  fetcher: typeof fetch,
): Promise<Result<Log[], ObservedUsageError>> {
  let res: Response;
  try {
    res = await fetcher(url, {
      headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
      signal: AbortSignal.timeout(AI_GATEWAY_PAGE_TIMEOUT_MS),
    });
  } catch (e) {
    return unavailable(`AI Gateway's logs API could not be reached: ${describe(e)}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    return unavailable(`AI Gateway's logs API answered ${res.status}`);
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    return unavailable("AI Gateway's logs API answered something that is not JSON");
  }
  const page = LogsPageSchema.safeParse(body);
  if (!page.success)
    return unavailable(
      `AI Gateway's logs API answered an unexpected shape: ${page.error.issues[0]?.message ?? ""}`,
    );
  return ok(page.data.result);
}

/** The kept logs as observed usage: per model (sorted by name), tokens over the calls with usage. */
function summarize(logs: Log[], q: ObservedUsageQuery): ObservedUsage | null {
  if (logs.length === 0) return null;
  const byModel = new Map<string, ObservedModelUsage>();
  let callsWithoutUsage = 0;
  for (const log of logs) {
    const name = log.model ?? "unknown";
    const m = byModel.get(name) ?? { model: name, calls: 0, tokensIn: 0, tokensOut: 0 };
    m.calls += 1;
    const tokensIn = count.safeParse(log.tokens_in);
    const tokensOut = count.safeParse(log.tokens_out);
    if (tokensIn.success && tokensOut.success) {
      m.tokensIn += tokensIn.data;
      m.tokensOut += tokensOut.data;
    } else callsWithoutUsage += 1;
    byModel.set(name, m);
  }
  const models = [...byModel.values()].sort((a, b) =>
    a.model < b.model ? -1 : a.model > b.model ? 1 : 0,
  );
  return {
    source: "ai-gateway",
    calls: logs.length,
    tokensIn: models.reduce((n, m) => n + m.tokensIn, 0),
    tokensOut: models.reduce((n, m) => n + m.tokensOut, 0),
    callsWithoutUsage,
    models,
    from: q.from ?? 0,
    to: q.to,
  };
}

function unavailable(detail: string): { ok: false; error: ObservedUsageError } {
  return err({ reason: "usage-unavailable", retryable: true, detail });
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message.slice(0, 200) : "unknown error";
}
