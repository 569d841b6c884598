/**
 * Test helpers: the real lockfiles under fixtures/, and builders of small npm locks, hashed
 * requirements files and uv.locks whose every entry passes until a test breaks one rule.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  canonicalTarballPath,
  DEFAULT_DEPENDENCY_POLICY,
  type DependencyPolicy,
  type DependencyRefusal,
} from "../src/index.ts";

/** A fixture file's text. */
export function fixture(rel: string): string {
  return readFileSync(path.join(import.meta.dirname, "fixtures", rel), "utf8");
}

/** The default policy with some fields changed. */
export function policyWith(changes: Partial<DependencyPolicy> = {}): DependencyPolicy {
  return { ...DEFAULT_DEPENDENCY_POLICY, ...changes };
}

/** A well-formed sha512 SRI string, distinct per seed. */
export function sri(seed: string): string {
  return `sha512-${createHash("sha512").update(seed).digest("base64")}`;
}

/** A well-formed sha256 in hex, distinct per seed. */
export function sha256(seed: string): string {
  return createHash("sha256").update(seed).digest("hex");
}

/** A lock entry of `name@version` from the public registry, passing every rule. */
export function entry(name: string, version: string, extra: Record<string, unknown> = {}) {
  return {
    version,
    resolved: `https://registry.npmjs.org/${canonicalTarballPath(name, version)}`,
    integrity: sri(`${name}@${version}`),
    license: "MIT",
    ...extra,
  };
}

type Deps = Record<string, string>;

/**
 * A package.json and its package-lock.json (v3): `deps` are the manifest's dependencies (and
 * the lock root's), `packages` the lock's entries by key.
 */
export function npmProject(
  deps: Deps,
  packages: Record<string, unknown>,
  more: { devDependencies?: Deps; lockfileVersion?: unknown; root?: Record<string, unknown> } = {},
) {
  const fields = {
    ...(Object.keys(deps).length > 0 ? { dependencies: deps } : {}),
    ...(more.devDependencies ? { devDependencies: more.devDependencies } : {}),
  };
  const manifest = { name: "subject", version: "1.0.0", private: true, ...fields };
  const lock = {
    name: "subject",
    version: "1.0.0",
    lockfileVersion: "lockfileVersion" in more ? more.lockfileVersion : 3,
    requires: true,
    packages: {
      "": { name: "subject", version: "1.0.0", ...fields, ...more.root },
      ...packages,
    },
  };
  return { manifest: JSON.stringify(manifest, null, 2), lock: JSON.stringify(lock, null, 2) };
}

/** `n` distinct direct dependencies `pkg-0 … pkg-(n-1)` at 1.0.0, with their lock. */
export function manyPackages(n: number) {
  const deps: Deps = {};
  const packages: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const name = `zz-fixture-package-${i}`;
    deps[name] = "1.0.0";
    packages[`node_modules/${name}`] = entry(name, "1.0.0");
  }
  return npmProject(deps, packages);
}

/** A requirements.txt line pinning `name==version` with a sha256. */
export function pinned(name: string, version: string): string {
  return `${name}==${version} \\\n    --hash=sha256:${sha256(`${name}==${version}`)}\n`;
}

/** A uv.lock package table from PyPI with one wheel, passing every rule. */
export function uvPackage(name: string, version: string, extra = ""): string {
  const file = `${name.replace(/-/g, "_")}-${version}-py3-none-any.whl`;
  return [
    "[[package]]",
    `name = "${name}"`,
    `version = "${version}"`,
    'source = { registry = "https://pypi.org/simple" }',
    extra,
    "wheels = [",
    `    { url = "https://files.pythonhosted.org/packages/aa/bb/${file}", hash = "sha256:${sha256(file)}", size = 1000 },`,
    "]",
    "",
  ]
    .filter((l) => l !== "")
    .join("\n");
}

/** A uv.lock of a virtual project depending on `deps`, then the given package tables. */
export function uvLock(deps: string[], tables: string[], devDeps: string[] = []): string {
  const list = (names: string[]) => `[${names.map((n) => `{ name = "${n}" }`).join(", ")}]`;
  const root = [
    "[[package]]",
    'name = "subject"',
    'version = "0.1.0"',
    'source = { virtual = "." }',
    `dependencies = ${list(deps)}`,
    ...(devDeps.length > 0 ? ["", "[package.dev-dependencies]", `dev = ${list(devDeps)}`] : []),
    "",
  ].join("\n");
  return ["version = 1", "revision = 3", 'requires-python = ">=3.11"', "", root, ...tables].join(
    "\n\n",
  );
}

/** The refusals of a failed read (fails the test on success). */
export function refusalsOf<T>(
  r: { ok: true; value: T } | { ok: false; error: DependencyRefusal[] },
) {
  if (r.ok) throw new Error(`expected refusals, got ${JSON.stringify(r.value)}`);
  return r.error;
}

/** The one refusal of `rule` among `refusals` (fails the test when there is not exactly one). */
export function only<R extends DependencyRefusal["rule"]>(
  refusals: DependencyRefusal[],
  rule: R,
): DependencyRefusal & { rule: R } {
  const found = refusals.filter((r): r is DependencyRefusal & { rule: R } => r.rule === rule);
  if (found.length !== 1)
    throw new Error(`expected one ${rule}, got ${JSON.stringify(refusals, null, 2)}`);
  return found[0]!;
}
