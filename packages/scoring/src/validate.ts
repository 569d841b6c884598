/**
 * @module scoring/validate
 * Field checks shared by the profiles: every failure names the field. Pure.
 */
import { Exact } from "./exact.ts";
import { ok, type Result } from "@bouts/result";
import { invalid, type ScoringError } from "./errors.ts";

type Checked<T> = Result<T, ScoringError>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A finite number within [min, max], as an exact value. */
export function checkNumber(field: string, v: unknown, min: number, max: number): Checked<Exact> {
  if (typeof v !== "number" || !Number.isFinite(v))
    return invalid(field, `must be a finite number, got ${describe(v)}`);
  if (v < min || v > max) return invalid(field, `must be within ${min}–${max}, got ${v}`);
  const x = Exact.fromNumber(v);
  return x ? ok(x) : invalid(field, `cannot be represented exactly: ${v}`);
}

/** A 0–100 score. */
export const checkScore = (field: string, v: unknown): Checked<Exact> =>
  checkNumber(field, v, 0, 100);

/** A whole number within [min, max]. */
export function checkInt(
  field: string,
  v: unknown,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): Checked<number> {
  if (typeof v !== "number" || !Number.isSafeInteger(v))
    return invalid(field, `must be a whole number, got ${describe(v)}`);
  if (v < min || v > max) return invalid(field, `must be within ${min}–${max}, got ${v}`);
  return ok(v);
}

/** A non-empty array. */
export function checkArray(
  field: string,
  v: unknown,
  { nonEmpty = false } = {},
): Checked<unknown[]> {
  if (!Array.isArray(v)) return invalid(field, `must be an array, got ${describe(v)}`);
  if (nonEmpty && v.length === 0) return invalid(field, "must not be empty");
  return ok(v);
}

/** An object. */
export function checkRecord(field: string, v: unknown): Checked<Record<string, unknown>> {
  return isRecord(v) ? ok(v) : invalid(field, `must be an object, got ${describe(v)}`);
}

/** A non-empty string of bounded length. */
export function checkString(field: string, v: unknown, max = 500): Checked<string> {
  if (typeof v !== "string" || v.length === 0)
    return invalid(field, `must be a non-empty string, got ${describe(v)}`);
  if (v.length > max) return invalid(field, `must be at most ${max} characters`);
  return ok(v);
}

/** One of the allowed literal values. */
export function checkOneOf<T extends string>(
  field: string,
  v: unknown,
  allowed: readonly T[],
): Checked<T> {
  return typeof v === "string" && (allowed as readonly string[]).includes(v)
    ? ok(v as T)
    : invalid(field, `must be one of ${allowed.join(", ")}, got ${describe(v)}`);
}

/** A boolean. */
export function checkBoolean(field: string, v: unknown): Checked<boolean> {
  return typeof v === "boolean"
    ? ok(v)
    : invalid(field, `must be true or false, got ${describe(v)}`);
}

function describe(v: unknown): string {
  if (typeof v === "number") return String(v);
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v;
}

/**
 * One entry of a judge panel: a record whose `judge` names a judge not yet in `seen` (which it
 * joins). The entry's other fields are the caller's to check.
 */
export function checkJudgeEntry(
  field: string,
  raw: unknown,
  seen: Set<string>,
): Checked<{ judge: string; entry: Record<string, unknown> }> {
  const j = checkRecord(field, raw);
  if (!j.ok) return j;
  const judge = checkString(`${field}.judge`, j.value.judge, 200);
  if (!judge.ok) return judge;
  if (seen.has(judge.value))
    return invalid(`${field}.judge`, `duplicate judge ${JSON.stringify(judge.value)}`);
  seen.add(judge.value);
  return ok({ judge: judge.value, entry: j.value });
}
