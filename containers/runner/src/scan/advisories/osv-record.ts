/**
 * @module runner/scan/advisories/osv-record
 * Reads one OSV record (the PyPA database's YAML, or osv.dev's JSON) into an `Advisory`. Every
 * field is type-checked before use and nothing is coerced: a record of the wrong shape is an
 * error value naming the field. Kept: npm and PyPI entries, ECOSYSTEM and SEMVER ranges (GIT
 * ranges name commits), `versions`, `database_specific.cwe_ids`, the CVSS v3 vector, aliases
 * and a bounded summary. Withdrawn records give null. Pure.
 */
import { z } from "zod";
import { err, ok } from "@bouts/result";
import type { Result } from "@bouts/result";
import { ADVISORY_ECOSYSTEMS, AdvisorySchema } from "./model.ts";
import type { Advisory, AdvisoryRange, AffectedPackage, RangeEvent } from "./model.ts";
import { normalizePypiName } from "./versions.ts";

/** Longest summary kept (characters); longer text is cut with "…". */
export const MAX_SUMMARY = 200;

const text = z.string();
const OsvEventSchema = z.strictObject({
  introduced: text.optional(),
  fixed: text.optional(),
  last_affected: text.optional(),
  limit: text.optional(),
});
const OsvRecordSchema = z.object({
  id: text,
  summary: text.optional(),
  details: text.optional(),
  aliases: z.array(text).optional(),
  withdrawn: text.optional(),
  modified: text,
  affected: z
    .array(
      z.object({
        package: z.object({ ecosystem: text, name: text }).optional(),
        ranges: z.array(z.object({ type: text, events: z.array(OsvEventSchema) })).optional(),
        versions: z.array(text).optional(),
      }),
    )
    .optional(),
  severity: z.array(z.object({ type: text, score: text })).optional(),
  database_specific: z.object({ cwe_ids: z.array(text).optional() }).optional(),
});

/** What an OSV record is once read: its advisory (null when withdrawn or for no npm/PyPI package) and its `modified` time. */
export interface OsvReading {
  advisory: Advisory | null;
  modified: string;
}

/**
 * Reads a parsed OSV record (`unknown`: straight from YAML or JSON) from `source`.
 * @example
 * readOsvRecord(YAML.parse(text, { schema: "failsafe" }), "pypa")
 */
export function readOsvRecord(record: unknown, source: string): Result<OsvReading, string> {
  const parsed = OsvRecordSchema.safeParse(record);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    return err(`not an OSV record: ${i ? `${i.path.join(".")}: ${i.message}` : "shape"}`);
  }
  const r = parsed.data;
  if (r.withdrawn !== undefined) return ok({ advisory: null, modified: r.modified });
  const affected: AffectedPackage[] = [];
  for (const a of r.affected ?? []) {
    const ecosystem = ADVISORY_ECOSYSTEMS.find((e) => e === a.package?.ecosystem);
    if (ecosystem === undefined || a.package === undefined) continue;
    const ranges: AdvisoryRange[] = [];
    for (const range of a.ranges ?? []) {
      if (range.type !== "ECOSYSTEM" && range.type !== "SEMVER") continue;
      const events = range.events.map(readEvent);
      if (events.some((e) => e === null))
        return err(
          `${r.id}: a range event is not exactly one of introduced/fixed/last_affected/limit`,
        );
      if (events.length > 0) ranges.push({ type: range.type, events: events as RangeEvent[] });
    }
    const entry: AffectedPackage = {
      ecosystem,
      package: ecosystem === "PyPI" ? normalizePypiName(a.package.name) : a.package.name,
    };
    if (ranges.length > 0) entry.ranges = ranges;
    if (a.versions && a.versions.length > 0) entry.versions = a.versions;
    if (entry.ranges || entry.versions) affected.push(entry);
  }
  if (affected.length === 0) return ok({ advisory: null, modified: r.modified });
  const advisory: Advisory = {
    id: r.id,
    summary: boundSummary(r.summary ?? r.details ?? ""),
    source,
    affected,
  };
  const aliases = [...new Set(r.aliases ?? [])].filter((a) => a !== r.id).sort();
  if (aliases.length > 0) advisory.aliases = aliases;
  const cwes = [...new Set(r.database_specific?.cwe_ids ?? [])].filter((c) =>
    /^CWE-\d{1,5}$/.test(c),
  );
  if (cwes.length > 0) advisory.cwes = cwes.sort();
  const vector = r.severity?.find(
    (s) => s.type === "CVSS_V3" && /^CVSS:3\.[01]\//.test(s.score),
  )?.score;
  if (vector !== undefined) advisory.cvss = { vector };
  const checked = AdvisorySchema.safeParse(advisory);
  if (!checked.success) {
    const i = checked.error.issues[0];
    return err(`${r.id}: ${i ? `${i.path.join(".")}: ${i.message}` : "out of bounds"}`);
  }
  return ok({ advisory: checked.data, modified: r.modified });
}

/** One event with exactly one of its keys set; null otherwise. */
function readEvent(e: z.infer<typeof OsvEventSchema>): RangeEvent | null {
  const set = [e.introduced, e.fixed, e.last_affected, e.limit].filter((v) => v !== undefined);
  if (set.length !== 1) return null;
  if (e.introduced !== undefined) return { introduced: e.introduced };
  if (e.fixed !== undefined) return { fixed: e.fixed };
  if (e.last_affected !== undefined) return { last_affected: e.last_affected };
  return e.limit === undefined ? null : { limit: e.limit };
}

/** Whitespace collapsed, cut to `MAX_SUMMARY` characters with "…". */
export function boundSummary(s: string): string {
  const chars = [...s.replace(/\s+/g, " ").trim()];
  if (chars.length <= MAX_SUMMARY) return chars.join("");
  return `${chars
    .slice(0, MAX_SUMMARY - 1)
    .join("")
    .trimEnd()}…`;
}
