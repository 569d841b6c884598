/**
 * @module runner/scan/advisories/osv
 * The live advisory source: OSV's API (`POST /v1/querybatch`, which answers ids only, then
 * `GET /v1/vulns/{id}` for each record) through an injected `fetch`. Invariants: every request
 * shares one deadline; the number of records and the bytes of every answer are bounded; every
 * field is type-checked before use (osv-record.ts) and nothing is coerced; any failure is an
 * error value, on which the caller falls back to the snapshot.
 */
import { readBoundedBody } from "../../http-body.ts";
import { z } from "zod";
import { err, ok } from "@bouts/result";
import type { Result } from "@bouts/result";
import { affectedBy, mergeAliasedMatches, uniquePackages } from "./match.ts";
import type { Advisory, AdvisoryMatch, AdvisoryPackage } from "./model.ts";
import { readOsvRecord } from "./osv-record.ts";
import { isValidVersion, normalizePackageName } from "./versions.ts";

/** OSV's public batch endpoint; the record endpoint is `vulns/{id}` beside it. */
export const DEFAULT_OSV_ENDPOINT = "https://api.osv.dev/v1/querybatch";

/** What one live query may cost. */
export interface OsvLimits {
  /** Queries per batch request (OSV accepts at most 1000). */
  batchSize: number;
  /** Rounds of `page_token` follow-ups for queries with more results than one page. */
  maxPages: number;
  /** Distinct advisory records fetched. */
  maxRecords: number;
  /** Bytes of one batch answer. */
  maxBatchBytes: number;
  /** Bytes of one record. */
  maxRecordBytes: number;
  /** Record requests in flight at once. */
  concurrency: number;
}

export const DEFAULT_OSV_LIMITS: OsvLimits = {
  batchSize: 1000,
  maxPages: 3,
  maxRecords: 1000,
  maxBatchBytes: 8 * 1024 * 1024,
  maxRecordBytes: 1024 * 1024,
  concurrency: 6,
};

export interface OsvQueryOptions {
  fetch: typeof fetch;
  /** The querybatch URL (default `DEFAULT_OSV_ENDPOINT`). */
  endpoint?: string;
  /** The caller's cancellation. */
  signal?: AbortSignal;
  /** The deadline of the whole query, every request included (default 10 s). */
  timeoutMs?: number;
  limits?: Partial<OsvLimits>;
}

/** Why the live source gave no answer. */
export interface OsvError {
  reason:
    | "timeout"
    | "aborted"
    | "network"
    | "http-status"
    | "invalid-response"
    | "too-large"
    | "too-many";
  detail: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

const BatchAnswerSchema = z.object({
  results: z.array(
    z.object({
      vulns: z.array(z.object({ id: z.string().regex(ID) })).optional(),
      next_page_token: z.string().min(1).max(4096).optional(),
    }),
  ),
});

/** Aborts on its own, with the reason told apart from the caller's. */
class OsvAbort extends Error {
  readonly error: OsvError;
  constructor(error: OsvError) {
    super(error.detail);
    this.name = "OsvAbort";
    this.error = error;
  }
}

/**
 * Asks OSV which advisories affect `packages`, then fetches each record. Packages whose
 * version their ecosystem cannot parse are not sent (the caller reports them unchecked).
 * @example
 * await queryOsv([{ ecosystem: "PyPI", name: "jinja2", version: "2.4.1" }], { fetch })
 */
export async function queryOsv(
  packages: readonly AdvisoryPackage[],
  options: OsvQueryOptions,
): Promise<Result<AdvisoryMatch[], OsvError>> {
  const limits = { ...DEFAULT_OSV_LIMITS, ...options.limits };
  const endpoint = options.endpoint ?? DEFAULT_OSV_ENDPOINT;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const ctx: Ctx = { fetch: options.fetch, signal, timeout, caller: options.signal, limits };
  const queried = uniquePackages(packages).filter((p) => isValidVersion(p.ecosystem, p.version));
  try {
    const ids = await askBatches(ctx, endpoint, queried);
    const distinct = [...new Set(ids.flat())].sort();
    if (distinct.length > limits.maxRecords)
      throw new OsvAbort({
        reason: "too-many",
        detail: `${distinct.length} advisories, over the limit of ${limits.maxRecords}`,
      });
    const records = await fetchRecords(ctx, endpoint, distinct);
    const matches: AdvisoryMatch[] = [];
    queried.forEach((pkg, i) => {
      for (const id of ids[i] ?? []) {
        const advisory = records.get(id);
        // A withdrawn record (or one for no npm/PyPI package) is not reported.
        if (!advisory) continue;
        // OSV decides that the version is affected; the record gives the fix when it can.
        matches.push({
          package: pkg,
          advisory,
          fixed: affectedBy(advisory, pkg).fixed,
          duplicates: [],
        });
      }
    });
    return ok(mergeAliasedMatches(matches));
  } catch (e) {
    return err(toOsvError(e, ctx));
  }
}

interface Ctx {
  fetch: typeof fetch;
  signal: AbortSignal;
  timeout: AbortSignal;
  caller: AbortSignal | undefined;
  limits: OsvLimits;
}

/** The advisory ids of each query, in the order of `queried`. */
async function askBatches(
  ctx: Ctx,
  endpoint: string,
  queried: readonly AdvisoryPackage[],
): Promise<string[][]> {
  const ids: string[][] = queried.map(() => []);
  const query = (i: number, pageToken?: string) => {
    const p = queried[i]!;
    return {
      package: { ecosystem: p.ecosystem, name: normalizePackageName(p.ecosystem, p.name) },
      version: p.version,
      ...(pageToken === undefined ? {} : { page_token: pageToken }),
    };
  };
  let pending: { index: number; token?: string }[] = queried.map((_, index) => ({ index }));
  for (let round = 0; pending.length > 0; round++) {
    if (round > ctx.limits.maxPages)
      throw new OsvAbort({
        reason: "too-many",
        detail: `more than ${ctx.limits.maxPages} pages of results`,
      });
    const next: { index: number; token: string }[] = [];
    for (let start = 0; start < pending.length; start += ctx.limits.batchSize) {
      const chunk = pending.slice(start, start + ctx.limits.batchSize);
      const body = JSON.stringify({ queries: chunk.map((q) => query(q.index, q.token)) });
      const json = await request(ctx, endpoint, ctx.limits.maxBatchBytes, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      const answer = BatchAnswerSchema.safeParse(json);
      if (!answer.success || answer.data.results.length !== chunk.length)
        throw new OsvAbort({
          reason: "invalid-response",
          detail: answer.success
            ? `${answer.data.results.length} results for ${chunk.length} queries`
            : `querybatch answer: ${describeIssue(answer.error)}`,
        });
      answer.data.results.forEach((r, j) => {
        const { index } = chunk[j]!;
        for (const v of r.vulns ?? []) ids[index]!.push(v.id);
        if (r.next_page_token !== undefined) next.push({ index, token: r.next_page_token });
      });
    }
    pending = next;
  }
  return ids.map((list) => [...new Set(list)]);
}

/** Each record by id, fetched a few at a time; withdrawn ones are absent. */
async function fetchRecords(
  ctx: Ctx,
  endpoint: string,
  ids: readonly string[],
): Promise<Map<string, Advisory>> {
  const records = new Map<string, Advisory>();
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const url = new URL(`vulns/${encodeURIComponent(id)}`, endpoint);
      const json = await request(ctx, url.href, ctx.limits.maxRecordBytes, { method: "GET" });
      const read = readOsvRecord(json, "osv-api");
      if (!read.ok)
        throw new OsvAbort({ reason: "invalid-response", detail: `record ${id}: ${read.error}` });
      const advisory = read.value.advisory;
      if (advisory && advisory.id !== id)
        throw new OsvAbort({
          reason: "invalid-response",
          detail: `asked for record ${id}, got ${advisory.id}`,
        });
      if (advisory) records.set(id, advisory);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ctx.limits.concurrency, ids.length) }, worker));
  return records;
}

/** One request: status 200, at most `maxBytes` of UTF-8 JSON, within the shared deadline. */
async function request(
  ctx: Ctx,
  url: string,
  maxBytes: number,
  init: RequestInit,
): Promise<unknown> {
  const res = await ctx.fetch(url, {
    ...init,
    signal: ctx.signal,
    redirect: "error",
    headers: { accept: "application/json", ...init.headers },
  });
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => undefined);
    throw new OsvAbort({ reason: "http-status", detail: `${url} answered ${res.status}` });
  }
  const bytes = await readBoundedBody(res, maxBytes);
  if (bytes === null)
    throw new OsvAbort({ reason: "too-large", detail: `${url}: over ${maxBytes} bytes` });
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new OsvAbort({ reason: "invalid-response", detail: `${url}: not UTF-8` });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new OsvAbort({ reason: "invalid-response", detail: `${url}: not JSON` });
  }
}

/** The error value of whatever stopped the query. */
function toOsvError(e: unknown, ctx: Ctx): OsvError {
  if (e instanceof OsvAbort) return e.error;
  if (ctx.caller?.aborted) return { reason: "aborted", detail: "the scan was cancelled" };
  if (ctx.timeout.aborted) return { reason: "timeout", detail: "the live query's deadline passed" };
  if (!(e instanceof Error)) return { reason: "network", detail: "request failed" };
  const cause = e.cause instanceof Error ? `: ${e.cause.message}` : "";
  return { reason: "network", detail: `${e.message}${cause}`.slice(0, 300) };
}

function describeIssue(error: z.ZodError): string {
  const i = error.issues[0];
  return i ? `${i.path.join(".") || "(root)"}: ${i.message}` : "shape";
}
