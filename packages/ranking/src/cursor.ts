/**
 * @module ranking/cursor
 * Page cursors: an opaque string holding the ordering key of the last entry a page showed,
 * so the next page starts strictly after that key however the board moved in between.
 * Format (not a contract for clients): `r1.<score>.<iterations>.<timeToFinalMs>.<submittedAt>.<agentId>`
 * with the numbers in base 36 and the agentId as 4 hex digits per UTF-16 code unit.
 * Decoding accepts only the canonical encoding. Pure: no I/O, no clock.
 */
import type { Result } from "@bouts/result";
import type { RankingError } from "./errors.ts";
import { MAX_AGENT_ID_LENGTH, validateStanding, type Standing } from "./standing.ts";

/** The ordering key a cursor carries: every field of a standing that takes part in the order. */
export type CursorKey = Standing;

const VERSION = "r1";
const MAX_CURSOR_LENGTH = 5 * 12 + MAX_AGENT_ID_LENGTH * 4;
const NUMBER = /^(0|[1-9a-z][0-9a-z]*)$/;
const HEX = /^([0-9a-f]{4})+$/;

/**
 * Encodes the ordering key of an entry as an opaque, URL-safe cursor.
 * @example encodeCursor({ agentId: "a", score: 85, iterations: 1, timeToFinalMs: 1, submittedAt: 2 })
 * // "r1.2d.1.1.2.0061"
 */
export function encodeCursor(key: CursorKey): string {
  let hex = "";
  for (let i = 0; i < key.agentId.length; i++) {
    hex += key.agentId.charCodeAt(i).toString(16).padStart(4, "0");
  }
  const numbers = [key.score, key.iterations, key.timeToFinalMs, key.submittedAt];
  return `${VERSION}.${numbers.map((n) => n.toString(36)).join(".")}.${hex}`;
}

function badCursor(detail: string): Result<never, RankingError> {
  return { ok: false, error: { reason: "bad-cursor", detail } };
}

/**
 * Decodes a cursor made by encodeCursor; anything else gives a `bad-cursor` error, never a throw.
 * @example decodeCursor("garbage") // { ok: false, error: { reason: "bad-cursor", detail: "…" } }
 */
export function decodeCursor(cursor: unknown): Result<CursorKey, RankingError> {
  if (typeof cursor !== "string") return badCursor("not a string");
  if (cursor.length > MAX_CURSOR_LENGTH) return badCursor("too long");
  const parts = cursor.split(".");
  if (parts.length !== 6 || parts[0] !== VERSION) return badCursor("unknown format");
  const numbers: number[] = [];
  for (const part of parts.slice(1, 5)) {
    if (!NUMBER.test(part)) return badCursor("malformed number");
    numbers.push(parseInt(part, 36));
  }
  const hex = parts[5] ?? "";
  if (!HEX.test(hex)) return badCursor("malformed agentId");
  let agentId = "";
  for (let i = 0; i < hex.length; i += 4)
    agentId += String.fromCharCode(parseInt(hex.slice(i, i + 4), 16));
  const [score, iterations, timeToFinalMs, submittedAt] = numbers as [
    number,
    number,
    number,
    number,
  ];
  const key = { agentId, score, iterations, timeToFinalMs, submittedAt };
  const valid = validateStanding(key);
  if (!valid.ok) return badCursor(`out of range: ${valid.error.detail}`);
  // Canonical form only: one key, one cursor (also rejects numbers that lost precision).
  if (encodeCursor(key) !== cursor) return badCursor("not canonical");
  return { ok: true, value: key };
}
