/**
 * @module runner/scan/advisories/load
 * Reads the advisory snapshot shipped with the runner (`containers/runner/advisories/`, written
 * by `npm run advisories:refresh`), gzipped or not, and checks it against its schema. The
 * default file is read once per process; a missing or invalid snapshot is an error value, never
 * an empty (clean) one.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { err, ok } from "@bouts/result";
import type { Result } from "@bouts/result";
import { AdvisorySnapshotSchema } from "./model.ts";
import type { AdvisorySnapshot } from "./model.ts";

/** The snapshot the runner ships (gzipped JSON). */
export const DEFAULT_SNAPSHOT_FILE = path.resolve(
  import.meta.dirname,
  "../../../advisories/snapshot.json.gz",
);

/** Largest snapshot accepted once unpacked. */
const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;

/** Why a snapshot could not be used. */
export type SnapshotError =
  | { reason: "unreadable"; file: string; detail: string }
  | { reason: "invalid"; file: string; detail: string };

/** Parses snapshot bytes (gzip by its magic number, else JSON text) against the schema. */
export function parseAdvisorySnapshot(
  bytes: Uint8Array,
  file = "<bytes>",
): Result<AdvisorySnapshot, SnapshotError> {
  let text: string;
  try {
    const gz = bytes[0] === 0x1f && bytes[1] === 0x8b;
    const raw = gz ? gunzipSync(bytes, { maxOutputLength: MAX_SNAPSHOT_BYTES }) : bytes;
    if (raw.byteLength > MAX_SNAPSHOT_BYTES) throw new Error("larger than 64 MiB");
    text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch (e) {
    return err({ reason: "unreadable", file, detail: (e as Error).message });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return err({ reason: "invalid", file, detail: `not JSON: ${(e as Error).message}` });
  }
  const parsed = AdvisorySnapshotSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first ? `${first.path.join(".")}: ${first.message}` : "schema";
    return err({ reason: "invalid", file, detail: where });
  }
  return ok(parsed.data);
}

/** Reads and checks the snapshot at `file`. */
export async function readAdvisorySnapshot(
  file: string,
): Promise<Result<AdvisorySnapshot, SnapshotError>> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (e) {
    return err({ reason: "unreadable", file, detail: (e as Error).message });
  }
  return parseAdvisorySnapshot(bytes, file);
}

let shipped: Promise<Result<AdvisorySnapshot, SnapshotError>> | undefined;

/** The shipped snapshot, read and checked once per process (the first call starts the read). */
export function loadShippedSnapshot(): Promise<Result<AdvisorySnapshot, SnapshotError>> {
  shipped ??= readAdvisorySnapshot(DEFAULT_SNAPSHOT_FILE);
  return shipped;
}
