/**
 * @module contracts/evidence
 * Integrity and exploit evidence: what the runner or the trace analysis observed, keyed by a
 * trigger the scoring engine knows. The engine, not the observer, decides the points, so
 * evidence can never set a score. The trigger vocabularies are the engine's own tables
 * (`@bouts/scoring` INTEGRITY_TRIGGERS / EXPLOIT_TRIGGERS), never restated here. Pure: zod and
 * the pure engine only.
 */
import { EXPLOIT_TRIGGERS, INTEGRITY_TRIGGERS, PROVENANCES } from "@bouts/scoring";
import { z } from "zod";

/**
 * Who saw what a figure rests on: the platform itself (`observed`), the agent's own trace
 * (`self-reported`), or the trace checked against what the platform saw (`cross-checked`).
 * The engine's vocabulary (`PROVENANCES`), never restated here.
 */
export const ProvenanceSchema = z.enum(PROVENANCES);
export type ProvenanceWire = z.infer<typeof ProvenanceSchema>;

/** Conduct triggers: bounded together to +10 / −25 (composite seed, "Integrity Adjustment"). */
export const IntegrityTriggerSchema = z.enum(INTEGRITY_TRIGGERS);
export type IntegrityTrigger = z.infer<typeof IntegrityTriggerSchema>;

/** Exploit triggers: separate deductions for gaming the harness (docs/design.md §10). */
export const ExploitTriggerSchema = z.enum(EXPLOIT_TRIGGERS);
export type ExploitTrigger = z.infer<typeof ExploitTriggerSchema>;

/** One observation, cited: `citation` says what was seen, e.g. "tests/auth.test.ts was modified". */
export const IntegrityEvidenceSchema = z.strictObject({
  trigger: IntegrityTriggerSchema,
  citation: z.string().min(1).max(500),
  count: z.int().min(1).max(1_000_000).default(1),
});
export type IntegrityEvidence = z.infer<typeof IntegrityEvidenceSchema>;

export const ExploitEvidenceSchema = z.strictObject({
  trigger: ExploitTriggerSchema,
  citation: z.string().min(1).max(500),
  count: z.int().min(1).max(1_000_000).default(1),
});
export type ExploitEvidence = z.infer<typeof ExploitEvidenceSchema>;
