/**
 * @module contracts/operator
 * The bodies of operator actions that must say why (rejudge, removal, a version's promotion or
 * discard, a rebuild): one rule for the reason, kept in the audit trail (docs/design.md §25).
 * Each route names its body for its OpenAPI document and says where the reason is shown.
 * Pure: zod only.
 */
import { z } from "zod";
import { nonBlankText } from "./text.ts";

/** Why an operator acts: up to 500 characters, not all white space; kept trimmed. */
export const OperatorReasonSchema = nonBlankText(500);

/**
 * The body `{ reason }` of an operator action, its reason described as `description` (where the
 * reason is kept or shown).
 * @example reasonBodySchema("why the submission is re-judged (kept in the audit log)")
 */
export const reasonBodySchema = (description: string) =>
  z.object({ reason: OperatorReasonSchema.describe(description) });

/** The body of an operator action whose reason is optional (a rebuild). */
export const OptionalReasonBodySchema = z.object({ reason: OperatorReasonSchema.optional() });
