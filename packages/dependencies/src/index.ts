/**
 * @module dependencies
 * The one reader of dependency lockfiles, for every part that installs, scans or admits
 * third-party packages: package-lock.json (with package.json), a hashed requirements.txt and
 * uv.lock, read into exact registry releases with their hashes, or refused with every rule
 * broken, each naming the package. Pure: texts in, values out; no I/O, no clock, no `node:*`,
 * so ingest (workerd) and the runner (Node) read a lock alike.
 */
export {
  byNameAndVersion,
  DEFAULT_DEPENDENCY_POLICY,
  ECOSYSTEMS,
  LOCKFILES,
  type DependencyFile,
  type DependencyPolicy,
  type DependencySet,
  type Ecosystem,
  type Lockfile,
  type ResolvedPackage,
} from "./types.ts";
export {
  DEPENDENCY_RULES,
  describeDependencyRefusal,
  type DependencyRefusal,
  type DependencyRule,
} from "./refusal.ts";
export { NPM_DEPENDENCY_FIELDS, parseLockKey, readNpmLock, readNpmManifest } from "./npm.ts";
export { canonicalTarballPath } from "./npm-source.ts";
export { readRequirements, splitRequirementLines, type RequirementLine } from "./requirements.ts";
export { readUvLock } from "./uv-lock.ts";
export {
  decodeDependencyFile,
  DEPENDENCY_FILE_NAMES,
  findDeclaredDependencies,
  readDependencySet,
  readPythonLock,
} from "./dependency-set.ts";
export { findTyposquatTarget, isOneEditApart, TYPOSQUAT_MIN_LENGTH } from "./typosquat.ts";
export { LOOKALIKES_NPM, LOOKALIKES_PYPI, POPULAR_NPM, POPULAR_PYPI } from "./popular.ts";
export { isPythonName, isPythonVersion, normalizePythonName } from "./pep.ts";
export { resolveSubmissionPolicy, RUNTIME_ECOSYSTEMS } from "./policy.ts";
