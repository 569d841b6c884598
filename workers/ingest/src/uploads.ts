/**
 * @module ingest/uploads
 * Cheap edge checks on uploads before anything is stored: declared and actual size, media
 * type and the telemetry trace's format (archives are checked by @bouts/archive).
 * Invariant: a body is never read past its limit, so an oversized upload costs at most
 * `limit` bytes of memory; a refused trace is answered before anything is written. Refusals
 * are values (`Result`), for the caller to map.
 */
import { formatTraceError, parseTrace } from "@bouts/telemetry";
import { ok, refuse, type Result } from "./result.ts";

/** The archive formats accepted for submissions and bundles. */
export type { ArchiveFormat as ArchiveType } from "@bouts/archive";
import type { ArchiveFormat as ArchiveType } from "@bouts/archive";

/**
 * Reads a request body into memory, refusing it (413) as soon as it passes `limit` bytes,
 * and before reading at all when Content-Length already says so.
 */
export async function readBodyLimited(
  request: Request,
  limit: number,
  what: string,
): Promise<Result<Uint8Array>> {
  const declared = request.headers.get("Content-Length");
  if (declared !== null) {
    const n = Number(declared);
    if (!Number.isSafeInteger(n) || n < 0) {
      return refuse({
        reason: "unsupported-media-type",
        detail: "Content-Length is not a byte count.",
      });
    }
    if (n > limit) return refuse({ reason: "payload-too-large", what, limit });
  }
  if (!request.body) return ok(new Uint8Array(0));
  const reader = request.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      return refuse({ reason: "payload-too-large", what, limit });
    }
    chunks.push(value);
  }
  return ok(concatBytes(chunks, total));
}

/** Joins chunks of `total` bytes; a single chunk (the usual small body) is not copied. */
export function concatBytes(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The media type recorded with an archive in R2. */
export function archiveContentType(type: ArchiveType): string {
  return type === "zip" ? "application/zip" : "application/gzip";
}

/**
 * Validates a telemetry trace (our `bouts.trace/v1` JSONL or OTLP/JSON GenAI spans) with the
 * scorer's own parser, so every stored trace can be scored: 413 past `maxBytes`, 422 with
 * `formatTraceError`'s detail (the JSONL line or OTel span, and what is wrong) otherwise.
 */
export function checkTrace(bytes: Uint8Array, maxBytes: number): Result<void> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return refuse({ reason: "unprocessable", detail: "Invalid trace: it is not UTF-8 text." });
  }
  const parsed = parseTrace(text, { limits: { maxBytes } });
  if (parsed.ok) return ok(undefined);
  if (parsed.error.reason === "too-large")
    return refuse({ reason: "payload-too-large", what: "trace", limit: maxBytes });
  return refuse({
    reason: "unprocessable",
    detail: `Invalid trace: ${formatTraceError(parsed.error)}`,
    errors: [{ path: "trace", message: formatTraceError(parsed.error) }],
  });
}
