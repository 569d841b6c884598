// Harness side of the result channel: one JSON object per line on fd 3, a pipe the host owns.
// Loaded read-only from /opt/bouts/harness; nothing here reads the workspace.
import { writeSync } from "node:fs";

const CHANNEL_FD = 3;

/** Writes one record to the host; a closed channel is ignored (the host has stopped listening). */
export function emit(record) {
  try {
    writeSync(CHANNEL_FD, JSON.stringify(record) + "\n");
  } catch {
    // channel closed
  }
}
