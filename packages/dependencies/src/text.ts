/**
 * @module dependencies/text
 * Small helpers every reader shares: UTF-8 byte counts, JSON parsed without throwing, and the
 * checks that keep hostile values from being read as something else. Pure.
 */
import { err, ok, type Result } from "@bouts/result";

const encoder = new TextEncoder();

/** The text's size in UTF-8 bytes (what a limit counts; never a string's `.length`). */
export function countUtf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/** Parses JSON (a leading byte-order mark is dropped, as npm does); the parser's message on failure. */
export function parseJson(text: string): Result<unknown, string> {
  try {
    return ok(JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text) as unknown);
  } catch (e) {
    return err(e instanceof Error ? e.message : "not JSON");
  }
}

/** A plain JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A value quoted for a refusal's detail, cut to `max` characters. */
export function quote(v: unknown, max = 80): string {
  const s = typeof v === "string" ? v : (JSON.stringify(v) ?? typeof v);
  const cut = s.length > max ? `${s.slice(0, max)}…` : s;
  return JSON.stringify(cut);
}
