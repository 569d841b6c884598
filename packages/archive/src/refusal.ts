/**
 * @module archive/refusal
 * Why an archive was refused: a `reason` tag, the offending entry whenever there is one, and a
 * detail for logs. Pure: no I/O.
 */

/** Every reason an archive can be refused. */
export type ArchiveRefusalReason =
  | "unknown-format"
  | "archive-too-large"
  | "corrupt-archive"
  | "truncated"
  | "checksum-mismatch"
  | "size-mismatch"
  | "header-mismatch"
  | "overlapping-entries"
  | "encrypted-entry"
  | "multi-disk"
  | "unsupported-method"
  | "unsupported-entry-type"
  | "nested-archive"
  | "link-entry"
  | "special-entry"
  | "duplicate-entry"
  | "unsafe-path"
  | "unsafe-name"
  | "invalid-name-encoding"
  | "name-too-long"
  | "too-deep"
  | "too-many-entries"
  | "too-large-expanded"
  | "ratio-exceeded"
  | "trailing-data"
  | "unwritable-entry";

/** A refused archive; `entry` names the offending entry whenever there is one. */
export type ArchiveRefusal = {
  readonly reason: ArchiveRefusalReason;
  /** The entry's name as normalized, or as stored when it could not be normalized. */
  readonly entry?: string;
  readonly detail: string;
  /** The limit that tripped, for limit reasons. */
  readonly limit?: number;
  /** For `duplicate-entry`: the earlier entry it collides with. */
  readonly clashesWith?: string;
};

function describeRule(reason: ArchiveRefusalReason): string {
  switch (reason) {
    case "unknown-format":
      return "not a .tar.gz or .zip archive";
    case "archive-too-large":
      return "archive over the size limit";
    case "corrupt-archive":
      return "corrupt archive";
    case "truncated":
      return "truncated archive";
    case "checksum-mismatch":
      return "checksum mismatch";
    case "size-mismatch":
      return "size differs from the declared size";
    case "header-mismatch":
      return "central and local headers disagree";
    case "overlapping-entries":
      return "entries overlap";
    case "encrypted-entry":
      return "encrypted entries are not accepted";
    case "multi-disk":
      return "multi-disk archives are not accepted";
    case "unsupported-method":
      return "only stored and deflate entries are accepted";
    case "unsupported-entry-type":
      return "unsupported entry type";
    case "nested-archive":
      return "archives inside archives are not accepted";
    case "link-entry":
      return "links of any kind are not accepted";
    case "special-entry":
      return "only files and folders are accepted";
    case "duplicate-entry":
      return "name collides with another entry";
    case "unsafe-path":
      return "unsafe path";
    case "unsafe-name":
      return "control or bidirectional characters in the name";
    case "invalid-name-encoding":
      return "name is not valid UTF-8";
    case "name-too-long":
      return "name over the byte limit";
    case "too-deep":
      return "nested too deep";
    case "too-many-entries":
      return "too many entries";
    case "too-large-expanded":
      return "expanded size over the limit";
    case "ratio-exceeded":
      return "compression ratio over the limit";
    case "trailing-data":
      return "data after the end of the archive";
    case "unwritable-entry":
      return "entry could not be written";
  }
}

/**
 * Formats a refusal as one line naming the entry and the rule.
 * @example describeArchiveRefusal(r) // 'link-entry: "a/link": links of any kind are not accepted (symbolic link)'
 */
export function describeArchiveRefusal(r: ArchiveRefusal): string {
  const at = r.entry !== undefined ? ` ${JSON.stringify(r.entry)}` : "";
  const clash = r.clashesWith !== undefined ? ` with ${JSON.stringify(r.clashesWith)}` : "";
  const limit = r.limit !== undefined ? ` [limit ${r.limit}]` : "";
  return `${r.reason}${at}: ${describeRule(r.reason)}${clash} (${r.detail})${limit}`;
}

/** Builds a refusal, omitting an undefined entry so results compare cleanly. */
export function buildRefusal(
  reason: ArchiveRefusalReason,
  entry: string | undefined,
  detail: string,
  extra: { limit?: number; clashesWith?: string } = {},
): ArchiveRefusal {
  return { reason, ...(entry !== undefined ? { entry } : {}), detail, ...extra };
}
