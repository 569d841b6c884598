/**
 * @module dependencies/types
 * The values the lockfile readers produce (`DependencySet`, `ResolvedPackage`) and the policy
 * they apply (`DependencyPolicy`, `DEFAULT_DEPENDENCY_POLICY`). Pure: types and constants only.
 */

/** The package ecosystems a lockfile can pin, named as the advisory databases (OSV) name them. */
export const ECOSYSTEMS = ["npm", "PyPI"] as const;
export type Ecosystem = (typeof ECOSYSTEMS)[number];

/** The lockfiles read: npm's, pip's hashed requirements file, and uv's lock. */
export const LOCKFILES = ["package-lock.json", "requirements.txt", "uv.lock"] as const;
export type Lockfile = (typeof LOCKFILES)[number];

/** One file of a submission or bundle as text: its path relative to the folder, and its content. */
export interface DependencyFile {
  path: string;
  text: string;
}

/** One package pinned by a lockfile: an exact version from the registry, with its hashes. */
export interface ResolvedPackage {
  ecosystem: Ecosystem;
  /** The registry's name: npm's as written (an alias's real name), PyPI's normalized (PEP 503). */
  name: string;
  /** The exact version: semver for npm, PEP 440 for PyPI. */
  version: string;
  /**
   * What the installer checks the download against: npm's SRI string as locked (it holds a
   * sha512), or for PyPI every allowed file's `sha256:<hex>`, space-separated, sorted.
   */
  integrity: string;
  /** The tarball or file URL the lock names; null when the lock leaves it to the registry. */
  resolved: string | null;
  /**
   * uv.lock only: every file the lock names for the release (sdist and wheels), each URL with its
   * `sha256:<hex>`, as locked; absent where the lock names no files (npm, requirements.txt).
   */
  files?: { url: string; hash: string }[];
  /** Named by the manifest (or, for requirements.txt, by a line of the file). */
  direct: boolean;
  /** Needed only for development (npm `dev: true`; uv: reachable only from a dev group). */
  dev: boolean;
  /**
   * Where the lock pins it: npm's key (`node_modules/a/node_modules/b`), `requirements.txt:<line>`,
   * or `uv.lock:<name>@<version>`.
   */
  path: string;
}

/** Every package a folder's lockfile pins, each checked against the policy. */
export interface DependencySet {
  ecosystem: Ecosystem;
  /** The lockfile the set was read from (at the folder's root). */
  lockfile: Lockfile;
  /** In a stable order: npm's by `path`, PyPI's by name, then version. */
  packages: ResolvedPackage[];
}

/** Orders packages by name, then version, then path (PyPI sets). */
export function byNameAndVersion(a: ResolvedPackage, b: ResolvedPackage): number {
  const ka = [a.name, a.version, a.path];
  const kb = [b.name, b.version, b.path];
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
  return 0;
}

/** What a lockfile may pin, and how much of it. */
export interface DependencyPolicy {
  /**
   * The registries packages may come from, per ecosystem: npm registry bases (tarballs must be
   * at `<base><name>/-/<unscoped-name>-<version>.tgz`) and PyPI simple indexes (uv.lock's
   * `source.registry`).
   */
  registries: Readonly<Record<Ecosystem, readonly string[]>>;
  /** Where a uv.lock's wheel and sdist URLs may point (prefixes, e.g. PyPI's file host). */
  pypiFileHosts: readonly string[];
  /** Most packages a lock may pin (the root project not counted). */
  maxPackages: number;
  /** Largest manifest or lockfile, in UTF-8 bytes. */
  maxLockBytes: number;
  /** Names exempt from the typosquat check (the challenge's `dependencies.allowNames`). */
  allowNames: readonly string[];
  /** The ecosystems the folder may use (a Node challenge takes npm's); absent: any. */
  ecosystems?: readonly Ecosystem[];
}

/**
 * The default policy: the public npm registry and PyPI only, 200 packages, 2 MiB per file
 * (a 2000-package package-lock.json is about 1.5 MiB), no typosquat exemptions, any ecosystem.
 */
export const DEFAULT_DEPENDENCY_POLICY: DependencyPolicy = Object.freeze({
  registries: Object.freeze({
    npm: Object.freeze(["https://registry.npmjs.org/"]),
    PyPI: Object.freeze(["https://pypi.org/simple"]),
  }),
  pypiFileHosts: Object.freeze(["https://files.pythonhosted.org/"]),
  maxPackages: 200,
  maxLockBytes: 2 * 1024 * 1024,
  allowNames: Object.freeze([]),
});
