/**
 * @module contracts/json
 * JSON text at a boundary (a stored column, a request part) becomes a value for a schema to
 * check. Invariant: never throws; "no value" is `undefined`, which JSON itself never produces,
 * so every schema refuses it and no caller mistakes it for a stored `null`. Pure.
 */

/**
 * Parses JSON text for a schema to check next: the value, or `undefined` when there is no text
 * (`null`) or the text is not JSON.
 * @example ChallengeManifestSchema.safeParse(parseJson(row.bundleManifest)) // fails on absent or bad JSON
 */
export function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
