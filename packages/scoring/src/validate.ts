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

/** Options of {@link checkKeyedEntry}. */
export interface KeyedEntryOptions {
  /** The field that keys the list (`id`, `judge`, `name`). */
  key: string;
  /** What an entry is, for the duplicate message ("judge", "claim" …). */
  noun: string;
  /** The keys seen so far in the list; the entry's joins them. */
  seen: Set<string>;
  /** Longest key accepted (checkString's default when omitted). */
  maxLength?: number;
}

/**
 * One entry of a list keyed by one of its fields: a record whose key is a non-empty string not
 * yet in `seen` (which it joins). The entry's other fields are the caller's to check.
 */
export function checkKeyedEntry(
  field: string,
  raw: unknown,
  { key, noun, seen, maxLength }: KeyedEntryOptions,
): Checked<{ id: string; entry: Record<string, unknown> }> {
  const entry = checkRecord(field, raw);
  if (!entry.ok) return entry;
  const id = checkString(`${field}.${key}`, entry.value[key], maxLength);
  if (!id.ok) return id;
  if (seen.has(id.value))
    return invalid(`${field}.${key}`, `duplicate ${noun} ${JSON.stringify(id.value)}`);
  seen.add(id.value);
  return ok({ id: id.value, entry: entry.value });
}
