/**
 * @module runner/scan/deadline
 * What a scan stopped by its deadline reports. It is never clean: it is `partial`, every file a
 * stopped tool did not finish is in `skipped`, and, as with code run from a source the scan
 * cannot read (dynamic-code.ts), it counts once as a critical finding, because a file that
 * stalls the scanner may hide any vulnerability. Pure: no I/O.
 */
import type { Finding } from "@bouts/contracts";

/** Rule id of the one finding a scan stopped by its deadline adds. */
export const SCAN_DEADLINE_RULE = "bouts.scan-deadline-exhausted";
/** Files listed one by one in `skipped`; the rest are counted in one entry. */
const LISTED_FILES = 100;

/** The `skipped` entries for the files `tool` did not finish before the deadline. */
export function buildDeadlineSkips(
  tool: string,
  files: readonly string[],
  deadlineMs: number,
): { file: string; reason: string }[] {
  const reason = `not scanned by ${tool}: the scan's deadline of ${deadlineMs} ms ran out`;
  const out = files.slice(0, LISTED_FILES).map((file) => ({ file, reason }));
  if (files.length > LISTED_FILES)
    out.push({ file: "*", reason: `${reason} (and ${files.length - LISTED_FILES} more files)` });
  return out;
}

/** The one critical finding of a scan stopped by its deadline. */
export function buildDeadlineFinding(
  stopped: readonly string[],
  firstFile: string,
  deadlineMs: number,
): Finding {
  return {
    tool: "bouts-scan",
    rule: SCAN_DEADLINE_RULE,
    cwe: null,
    severity: "critical",
    file: firstFile,
    line: 0,
    message:
      `the scan's deadline of ${deadlineMs} ms ran out before ${stopped.join(" and ")} finished; counted once as a critical finding, because code the scan did not read may hide any vulnerability`.slice(
        0,
        2000,
      ),
  };
}
