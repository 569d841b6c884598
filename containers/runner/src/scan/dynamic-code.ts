/**
 * @module runner/scan/dynamic-code
 * Turns the dynamic-code rules' matches (scan-rules/*\/dynamic-code.yaml) into `skipped` entries:
 * code run from a source the scan cannot see is reported as not scanned, with the file, the line
 * and what it is run from, never as a vulnerability finding. Invariants: entries are de-duplicated
 * and ordered by file and line, capped at MAX_DYNAMIC_ENTRIES (one more entry counts the rest, so
 * the scan still says how many were left out); links are not followed.
 */
import { lstat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Finding } from "@bouts/contracts";
import type { LoadedModule, UnscannedCode } from "./tool.ts";
import { disallowedScheme } from "./url-specifiers.ts";

/** At most this many dynamic-code entries are listed; one more entry counts the rest. */
export const MAX_DYNAMIC_ENTRIES = 200;

/** The start of every dynamic-code reason; the score worker and readers can key on it. */
export const DYNAMIC_CODE_REASON_PREFIX = "dynamic code loading";

/**
 * Files an ES module `import` of which Node never runs as JavaScript (it refuses the
 * extension) and that front-end code imports for a bundler: not reported when imported.
 */
const IMPORTED_ASSETS = new Set([
  ".css",
  ".scss",
  ".sass",
  ".less",
  ".styl",
  ".svg",
  ".png",
  ".jpg",
  ".jpeg",
  ".gif",
  ".webp",
  ".avif",
  ".ico",
  ".bmp",
  ".woff",
  ".woff2",
  ".ttf",
  ".otf",
  ".eot",
  ".mp3",
  ".mp4",
  ".webm",
  ".wav",
]);

export interface DynamicCodeInput {
  /** The submission root the specifiers are resolved in. */
  dir: string;
  /** Scratch path → submission path of every scanned file. */
  fileOf: ReadonlyMap<string, string>;
  unscanned: readonly UnscannedCode[];
  loads: readonly LoadedModule[];
}

/** The `skipped` entries for the dynamic code loading the rules found. */
export async function describeDynamicCode(
  input: DynamicCodeInput,
): Promise<{ file: string; reason: string }[]> {
  const scanned = new Set(input.fileOf.values());
  const entries: { file: string; line: number; source: string }[] = [];
  for (const u of input.unscanned) {
    const file = input.fileOf.get(u.scratchPath);
    if (file !== undefined) entries.push({ file, line: u.line, source: u.source });
  }
  for (const l of input.loads) {
    const file = input.fileOf.get(l.scratchPath);
    if (file === undefined) continue;
    const source = await unscannedModule(input.dir, file, l, scanned);
    if (source) entries.push({ file, line: l.line, source });
  }
  entries.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  const seen = new Set<string>();
  const unique = entries.filter((e) => {
    const key = `${e.file}\u0000${e.line}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const listed = unique.slice(0, MAX_DYNAMIC_ENTRIES).map((e) => ({
    file: e.file.slice(0, 1024),
    reason: dynamicCodeReason(e.line, e.source),
  }));
  if (unique.length > MAX_DYNAMIC_ENTRIES) {
    const rest = unique.slice(MAX_DYNAMIC_ENTRIES);
    listed.push({
      file: rest[0]!.file.slice(0, 1024),
      reason: `${DYNAMIC_CODE_REASON_PREFIX}: ${rest.length} more places in ${new Set(rest.map((e) => e.file)).size} files run code the scan cannot see (not listed)`,
    });
  }
  return listed;
}

/** "dynamic code loading at line N: code run from <source> is not scanned", within 500 chars. */
export function dynamicCodeReason(line: number, source: string): string {
  let what = source.replace(/\s+/g, " ").trim() || "a source the rule did not name";
  if (what.length > 300) what = `${what.slice(0, 299)}…`;
  return `${DYNAMIC_CODE_REASON_PREFIX} at line ${line}: code run from ${what} is not scanned`;
}

/**
 * What a literal specifier loads when that is code the scan does not read, or null: a URL
 * with a scheme other than node:/file: (data:, http:, …), an absolute path (which file it names depends on where the code runs), or an existing file in
 * the submission that is not scanned (require("./payload.txt"), require("./lib") naming a file
 * without an extension). `require` runs a file of any extension as JavaScript, so
 * only JSON is exempt; an ES `import` also leaves stylesheets and media to a bundler.
 */
async function unscannedModule(
  dir: string,
  file: string,
  load: LoadedModule,
  scanned: ReadonlySet<string>,
): Promise<string | null> {
  let spec = load.specifier;
  const via = load.kind === "require" ? "loaded as a module" : "imported";
  const scheme = disallowedScheme(spec);
  if (scheme !== null) {
    const shown = spec.length > 60 ? `${spec.slice(0, 59)}…` : spec;
    return `${JSON.stringify(shown)} (${via} from a ${scheme} URL: its code is not in the submission's files)`;
  }
  if (spec.startsWith("file:")) {
    try {
      spec = fileURLToPath(spec);
    } catch {
      return `${load.specifier} (${via} by a file: URL the scanner cannot resolve)`;
    }
  }
  if (load.kind === "import") spec = spec.replace(/[?#].*$/, "");
  if (spec.startsWith("/")) {
    return `${load.specifier} (${via} by an absolute path the scanner cannot tie to a file)`;
  }
  const rel = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  if (rel === ".." || rel.startsWith("../") || scanned.has(rel)) return null;
  let isFile: boolean;
  try {
    const st = await lstat(path.join(dir, rel));
    if (st.isSymbolicLink()) return `${load.specifier} (${via}: a symbolic link, not followed)`;
    isFile = st.isFile();
  } catch {
    return null;
  }
  if (!isFile) return null;
  const ext = path.posix.extname(rel).toLowerCase();
  if (ext === ".json") return null;
  if (load.kind === "import" && IMPORTED_ASSETS.has(ext)) return null;
  // A .js file can be unscanned too: too large, or in a folder the scan skips (.git/).
  const kind = ext ? `a ${ext} file` : "a file with no extension";
  return `${rel} (${kind} ${via}; Node runs it as code)`;
}

/** Rule id of the finding that stands for code the scan could not read. */
export const UNSCANNED_CODE_RULE = "bouts.unscanned-dynamic-code";

/**
 * One critical finding for all the code run from sources the scan cannot read, so hiding code
 * from the scan never scores better than showing it (docs/scoring.md, "Unscanned code").
 */
export function buildUnscannedFinding(
  entries: readonly { file: string; reason: string }[],
): Finding {
  const first = entries[0]!;
  const line = Number(/at line (\d+)/.exec(first.reason)?.[1] ?? 0);
  return {
    tool: "bouts-scan",
    rule: UNSCANNED_CODE_RULE,
    cwe: null,
    severity: "critical",
    file: first.file,
    line,
    message:
      `code is run from ${entries.length} source${entries.length === 1 ? "" : "s"} the scan cannot read (first: ${first.reason}); counted once as a critical finding, because unscanned code may hide any vulnerability`.slice(
        0,
        2000,
      ),
  };
}
