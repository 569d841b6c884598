/**
 * @module ingest/result
 * `@bouts/result`'s Result with the ingest domain error as its default error, and `refuse`,
 * which fails with one (`errors.ts`). Chain with `if (!r.ok) return r`.
 */
import { err, type Err, type Result as BaseResult } from "@bouts/result";
import type { IngestError } from "./errors.ts";

export { ok } from "@bouts/result";

/** A value, or the ingest error that stopped it. */
export type Result<T, E = IngestError> = BaseResult<T, E>;

/** A failed result carrying an ingest domain error. */
export const refuse = (error: IngestError): Err<IngestError> => err(error);
