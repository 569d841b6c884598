/**
 * @module dependencies/pep
 * Python's naming and versioning rules as the readers apply them: PEP 508 project names, their
 * PEP 503 normal form, and PEP 440 versions (the pattern of pypa/packaging, public and local
 * parts). Pure: regular expressions only.
 */

// PEP 508: letters, digits, and `.`, `_`, `-` inside; ASCII only.
const PEP508_NAME = /^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$/i;

// PEP 440, as pypa/packaging's VERSION_PATTERN (which also takes the normal form's spellings).
const PEP440_VERSION = new RegExp(
  "^v?" +
    "(?:[0-9]+!)?" + // epoch
    "[0-9]+(?:\\.[0-9]+)*" + // release
    "(?:[-_.]?(?:alpha|a|beta|b|preview|pre|c|rc)[-_.]?[0-9]*)?" + // pre-release
    "(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?" + // post-release
    "(?:[-_.]?dev[-_.]?[0-9]*)?" + // development release
    "(?:\\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?" + // local version
    "$",
  "i",
);

/** Whether `name` is a valid PEP 508 project name. */
export function isPythonName(name: string): boolean {
  return PEP508_NAME.test(name);
}

/** The PEP 503 normal form: lower-case, every run of `-`, `_` and `.` one `-`. */
export function normalizePythonName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/** Whether `version` is a PEP 440 version (exactly one version: no wildcard, no range). */
export function isPythonVersion(version: string): boolean {
  return PEP440_VERSION.test(version);
}
