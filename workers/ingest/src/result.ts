/**
 * @module ingest/result
 * Expected failures as values: a `Result` whose error is an ingest domain error (`errors.ts`),
 * chained with `if (!r.ok) return r`, without a Result library.
 */
import type { IngestError } from "./errors.ts";

/** A value, or the expected failure that stopped it (chain with `if (!r.ok) return r`). */
export type Result<T, E = IngestError> = { ok: true; value: T } | { ok: false; error: E };

/** A successful result. */
export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

/** A failed result. */
export const refuse = (error: IngestError): { ok: false; error: IngestError } => ({
  ok: false,
  error,
});
