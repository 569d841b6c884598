/**
 * @module runner/run/subject-channel
 * Reads the subject's fd 3 as it arrives: protocol frames (`{"t":…}`) and observation records
 * (`{"k":…}`), one JSON object per line. Invariants: memory is bounded whatever the subject
 * writes (a record line is never held past MAX_RECORD_BYTES, a line that is neither a frame nor a
 * record never past MAX_OTHER_LINE_BYTES, a frame never past MAX_FRAME_BYTES), records are
 * parsed and checked one by one as they come, never kept as text; the run reads at most
 * MAX_RECORD_BYTES_PER_RUN of records (shared by every incarnation); nothing here throws into the
 * stream's event handler: the subject's bytes can only ever produce items or violations.
 */
import { parseObservedRecord, type ObservedRecord } from "./analyze.ts";

/** Largest line either side may send (docs/subject-protocol.md). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/**
 * Largest observation record line. The harness cuts every field to 300 characters, so its own
 * records stay far below this even with every character escaped; a longer one was written by
 * submission code.
 */
export const MAX_RECORD_BYTES = 8 * 1024;
/** Largest line that starts as neither a frame nor a record (it is a violation either way). */
const MAX_OTHER_LINE_BYTES = 8 * 1024;
/** Record bytes one run reads; past this, records are dropped (the first overflow is a violation). */
export const MAX_RECORD_BYTES_PER_RUN = 4 * 1024 * 1024;

/** A protocol frame (a JSON object with a string `t`). */
export type Frame = { t: string; id?: number } & Record<string, unknown>;

/** What one line of the subject's channel was. */
export type ChannelItem =
  | { kind: "frame"; frame: Frame }
  | { kind: "record"; record: ObservedRecord }
  | { kind: "violation"; what: string };

/** The run-wide record allowance, shared by all incarnations of one subject. */
export interface RecordAllowance {
  /** Record bytes read so far. */
  used: number;
  /** Set once the allowance was exceeded (reported once). */
  exceeded: boolean;
  /** Records that were well-formed JSON but not a known, well-typed record. */
  ignored: number;
}

/** A fresh allowance for one run. */
export function createRecordAllowance(): RecordAllowance {
  return { used: 0, exceeded: false, ignored: 0 };
}

/** What the line being read is, as far as its first bytes tell; "dropped": a record past the allowance. */
type Mode = "undecided" | "record" | "frame" | "other" | "discard" | "dropped";

const RECORD_PREFIX = Buffer.from('{"k"');
const FRAME_PREFIX = Buffer.from('{"t"');

/**
 * A chunk handler for the subject's channel: splits lines, bounds each by what it can be, and
 * hands every complete line to `onItem` as a frame, a checked record or a violation. Blank lines
 * are skipped. Both harnesses write `k` or `t` first (`JSON.stringify` and `json.dumps` keep the
 * insertion order), which is what lets a line's kind, and so its bound, be known from its first
 * four bytes, before it is held.
 */
export function createSubjectChannel(
  onItem: (item: ChannelItem) => void,
  allowance: RecordAllowance,
): (chunk: Buffer) => void {
  let pieces: Buffer[] = [];
  let size = 0;
  let mode: Mode = "undecided";
  let discardWhy = "";

  const limitOf = (m: Mode): number =>
    m === "frame" ? MAX_FRAME_BYTES : m === "record" ? MAX_RECORD_BYTES : MAX_OTHER_LINE_BYTES;

  const decide = (): void => {
    if (mode !== "undecided" || size < 4) return;
    const head = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    if (head.subarray(0, 4).equals(RECORD_PREFIX)) {
      mode = allowance.exceeded ? "dropped" : "record";
      if (mode === "dropped") {
        pieces = [];
        size = 0;
      }
    } else if (head.subarray(0, 4).equals(FRAME_PREFIX)) mode = "frame";
    else mode = "other";
  };

  const startDiscard = (why: string): void => {
    pieces = [];
    size = 0;
    mode = "discard";
    discardWhy = why;
  };

  const endLine = (): void => {
    const m = mode;
    const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    pieces = [];
    size = 0;
    mode = "undecided";
    if (m === "dropped") return;
    if (m === "discard") return onItem({ kind: "violation", what: discardWhy });
    if (m === "record") return takeRecord(bytes);
    const line = bytes.toString("utf8");
    if (line.trim() === "") return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      return onItem({ kind: "violation", what: "a line that is not JSON" });
    }
    if (v === null || typeof v !== "object" || Array.isArray(v))
      return onItem({ kind: "violation", what: "a line that is not an object" });
    const o = v as Record<string, unknown>;
    // A line that is a record in all but its first bytes is still only evidence against itself,
    // within the record bound (MAX_OTHER_LINE_BYTES equals it; a frame-sized one is refused).
    if (typeof o.k === "string") {
      if (bytes.length > MAX_RECORD_BYTES)
        return onItem({
          kind: "violation",
          what: `an observation record larger than ${MAX_RECORD_BYTES} bytes`,
        });
      return takeParsedRecord(o, bytes.length);
    }
    if (typeof o.t !== "string")
      return onItem({ kind: "violation", what: "a frame without a type" });
    onItem({ kind: "frame", frame: o as Frame });
  };

  const takeRecord = (bytes: Buffer): void => {
    let v: unknown;
    try {
      v = JSON.parse(bytes.toString("utf8"));
    } catch {
      return onItem({ kind: "violation", what: "a line that is not JSON" });
    }
    takeParsedRecord(v, bytes.length);
  };

  const takeParsedRecord = (v: unknown, bytes: number): void => {
    if (!charge(bytes)) return;
    const record = parseObservedRecord(v);
    if (record) onItem({ kind: "record", record });
    else allowance.ignored += 1;
  };

  /** Counts a record against the run's allowance; false once it is spent. */
  const charge = (bytes: number): boolean => {
    if (allowance.exceeded) return false;
    allowance.used += bytes;
    if (allowance.used <= MAX_RECORD_BYTES_PER_RUN) return true;
    allowance.exceeded = true;
    onItem({
      kind: "violation",
      what: `more than ${MAX_RECORD_BYTES_PER_RUN} bytes of observation records`,
    });
    return false;
  };

  const append = (part: Buffer): void => {
    if (part.length === 0) return;
    if (mode === "discard" || mode === "dropped") return;
    pieces.push(part);
    size += part.length;
    decide();
    if (size > limitOf(mode)) {
      const what =
        mode === "frame"
          ? `a frame larger than ${MAX_FRAME_BYTES} bytes`
          : mode === "record"
            ? `an observation record larger than ${MAX_RECORD_BYTES} bytes`
            : `a line larger than ${MAX_OTHER_LINE_BYTES} bytes that is neither a frame nor a record`;
      startDiscard(what);
    }
  };

  return (chunk) => {
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
      append(chunk.subarray(start, i));
      start = i + 1;
      try {
        endLine();
      } catch {
        // Unreachable by construction; a handler that throws must still not stop the stream.
        pieces = [];
        size = 0;
        mode = "undecided";
      }
    }
    if (start < chunk.length) append(chunk.subarray(start));
  };
}
