/**
 * @module dependencies/npm-source
 * Where an npm package may come from: a manifest spec that names the registry (a semver range
 * or an `npm:` alias of one), and a lock entry's `resolved` that is exactly a policy
 * registry's canonical tarball URL. Every other source (a folder, a link, git, a tarball URL)
 * is described, for the refusal to say which it is. Pure.
 */
import { err, ok, type Result } from "@bouts/result";
import satisfies from "semver/functions/satisfies.js";
import validRange from "semver/ranges/valid.js";

/** The canonical tarball path of `name@version` under a registry: `@s/n/-/n-1.0.0.tgz`. */
export function canonicalTarballPath(name: string, version: string): string {
  const unscoped = name.startsWith("@") ? name.slice(name.indexOf("/") + 1) : name;
  return `${name}/-/${unscoped}-${version}.tgz`;
}

/** A registry base with exactly one trailing slash. */
export function registryBase(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}

/** Names the kind of a non-registry source, from how a spec or a `resolved` URL starts. */
export function describeSource(source: string): string {
  const s = source.toLowerCase();
  if (s.startsWith("file:") || s.startsWith(".") || s.startsWith("/") || s.startsWith("~"))
    return "a local file or folder";
  if (s.startsWith("link:") || s.startsWith("workspace:")) return "a link to a local folder";
  if (/^(git\+|git:|github:|gitlab:|bitbucket:|gist:)/.test(s)) return "a git repository";
  if (/^[a-z0-9][\w.-]*\/[\w.-]+(#.*)?$/i.test(source)) return "a GitHub repository (owner/repo)";
  if (s.startsWith("https:") || s.startsWith("http:")) return "a tarball URL";
  return "not a registry source";
}

/**
 * Why `resolved` is not a registry tarball of `name@version`, or null when it is exactly
 * `<registry base><canonical path>` for one of `registries` (no query, no fragment, no
 * credentials, no dot segments: the string itself is compared, not a parsed URL).
 */
export function checkResolved(
  resolved: string,
  name: string,
  version: string,
  registries: readonly string[],
): string | null {
  const path = canonicalTarballPath(name, version);
  if (registries.some((r) => resolved === registryBase(r) + path)) return null;
  const base = registries.find((r) => resolved.startsWith(registryBase(r)));
  if (base !== undefined) {
    return (
      `resolved ${JSON.stringify(resolved)} is on the registry but is not the canonical ` +
      `tarball of ${name}@${version} (${registryBase(base)}${path})`
    );
  }
  return (
    `resolved ${JSON.stringify(resolved)} is ${describeSource(resolved)}, not the registry ` +
    `(${registries.map(registryBase).join(", ")})`
  );
}

/** A manifest spec that names the registry: a semver range, or `npm:<name>@<range>`. */
export type RegistrySpec = { name: string | null; range: string };

/**
 * Reads a manifest spec (`^4.0.0`, `npm:ms@2.1.3`): the registry name it aliases (null when
 * the key is the name) and its range; or the reason it is not a registry spec, as the kind of
 * source (`non-registry`) or a range that is not semver (`not-a-range`, e.g. a dist-tag).
 */
export function readManifestSpec(
  spec: string,
): Result<RegistrySpec, { kind: "non-registry" | "not-a-range"; detail: string }> {
  let name: string | null = null;
  let range = spec;
  if (spec.startsWith("npm:")) {
    const at = spec.indexOf("@", 5); // after the scope's own "@"
    name = at === -1 ? spec.slice(4) : spec.slice(4, at);
    range = at === -1 ? "*" : spec.slice(at + 1);
  }
  if (validRange(range) !== null) return ok({ name, range });
  if (/^[a-z+]+:|^[./~]|\//i.test(range))
    return err({ kind: "non-registry", detail: describeSource(range) });
  return err({ kind: "not-a-range", detail: `${JSON.stringify(spec)} is not a semver range` });
}

/** Whether `version` satisfies the manifest's `range` (semver, as npm compares). */
export function rangeAccepts(range: string, version: string): boolean {
  return satisfies(version, range);
}
