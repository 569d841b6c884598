/**
 * @module runner/scan/advisories/model
 * The advisory shapes the dependency check works on: one `Advisory` per advisory (an OSV subset),
 * the shipped snapshot that holds them, and a match of one resolved package against one. The
 * snapshot's schema is the one `scripts/advisories.ts` writes with and the runner reads with.
 * Invariants: package names are stored as each ecosystem compares them (PyPI per PEP 503); no
 * field is coerced from another type. Pure: zod only.
 */
import { z } from "zod";

/** The ecosystems the check knows: npm (semver) and PyPI (PEP 440). */
export const ADVISORY_ECOSYSTEMS = ["npm", "PyPI"] as const;
export type AdvisoryEcosystem = (typeof ADVISORY_ECOSYSTEMS)[number];

/**
 * One resolved package to check, as the lockfile parser (`@bouts/dependencies`'
 * `ResolvedPackage`) gives it; only these three fields are read.
 */
export interface AdvisoryPackage {
  ecosystem: AdvisoryEcosystem;
  name: string;
  version: string;
}

const version = z.string().min(1).max(256);

/** One OSV range event; exactly one of its keys is set. */
export const RangeEventSchema = z.union([
  z.strictObject({ introduced: version }),
  z.strictObject({ fixed: version }),
  z.strictObject({ last_affected: version }),
  z.strictObject({ limit: version }),
]);
export type RangeEvent = z.infer<typeof RangeEventSchema>;

/**
 * An OSV range kept for matching: ECOSYSTEM (the ecosystem's own ordering) or SEMVER. GIT
 * ranges name commits, not released versions, and are not kept.
 */
export const AdvisoryRangeSchema = z.strictObject({
  type: z.enum(["ECOSYSTEM", "SEMVER"]),
  events: z.array(RangeEventSchema).min(1).max(512),
});
export type AdvisoryRange = z.infer<typeof AdvisoryRangeSchema>;

/** What one advisory says of one package. */
export const AffectedPackageSchema = z.strictObject({
  ecosystem: z.enum(ADVISORY_ECOSYSTEMS),
  /** npm: as published; PyPI: normalized per PEP 503 (`normalizePypiName`). */
  package: z.string().min(1).max(214),
  ranges: z.array(AdvisoryRangeSchema).max(64).optional(),
  /** Versions listed one by one as affected (OSV `versions`). */
  versions: z.array(version).max(20_000).optional(),
  /**
   * npm advisories of the Node.js security WG: the vulnerable semver range exactly as
   * published (`vulnerable_versions`). Kept as a range string: turning an arbitrary semver
   * range (`||`, hyphen, caret ranges) into OSV events is lossy.
   */
  semverRange: z.string().min(1).max(512).optional(),
  /** The same records' `patched_versions` range, shown as the fix. */
  patchedRange: z.string().min(1).max(512).optional(),
});
export type AffectedPackage = z.infer<typeof AffectedPackageSchema>;

/** CVSS v3 as the advisory gives it: a base score, a vector, or both. */
export const CvssSchema = z.strictObject({
  score: z.number().min(0).max(10).optional(),
  vector: z
    .string()
    .regex(/^CVSS:3\.[01]\//)
    .max(200)
    .optional(),
});
export type Cvss = z.infer<typeof CvssSchema>;

/** One advisory: the OSV fields the check needs, with a bounded summary. */
export const AdvisorySchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/),
  aliases: z.array(z.string().min(1).max(128)).max(64).optional(),
  summary: z.string().max(300),
  /** Which snapshot source it came from (`SnapshotSource.id`), or "osv-api". */
  source: z.string().min(1).max(64),
  affected: z.array(AffectedPackageSchema).min(1).max(256),
  cwes: z
    .array(z.string().regex(/^CWE-\d{1,5}$/))
    .max(32)
    .optional(),
  cvss: CvssSchema.optional(),
});
export type Advisory = z.infer<typeof AdvisorySchema>;

/** Where a snapshot's records came from, with the licence terms they are shipped under. */
export const SnapshotSourceSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]{1,64}$/),
  name: z.string().min(1).max(200),
  url: z.url(),
  licence: z.string().min(1).max(64),
  attribution: z.string().min(1).max(2000),
  /** The licence's own notice, when it asks to be copied with the data (MIT). */
  notice: z.string().max(4000).optional(),
  /** The source repository's commit the records were read at, when known. */
  commit: z
    .string()
    .regex(/^[0-9a-f]{7,64}$/)
    .optional(),
  records: z.int().min(0),
  /** The newest `modified`/`updated_at` among this source's records (ISO 8601). */
  newest: z.iso.datetime().optional(),
});
export type SnapshotSource = z.infer<typeof SnapshotSourceSchema>;

/** The offline advisory snapshot shipped with the runner (`containers/runner/advisories/`). */
export const AdvisorySnapshotSchema = z.strictObject({
  format: z.literal(1),
  /** The newest `modified`/`updated_at` among all records (ISO 8601): the data's as-of date. */
  asOf: z.iso.datetime(),
  sources: z.array(SnapshotSourceSchema).min(1).max(16),
  advisories: z.array(AdvisorySchema).max(200_000),
});
export type AdvisorySnapshot = z.infer<typeof AdvisorySnapshotSchema>;

/** One package found affected by one advisory, with the version that fixes it when known. */
export interface AdvisoryMatch {
  package: AdvisoryPackage;
  advisory: Advisory;
  /** The first fixed version above the package's (OSV ranges), or the patched range (npm WG). */
  fixed: string | null;
  /** Further advisories merged into this one because they name each other through aliases. */
  duplicates: Advisory[];
}
