/**
 * @module runner/scan/dependencies
 * Known-vulnerable dependencies. Scans run without network and this runner ships no offline
 * advisory database, so the check is reported as not measured, naming the lockfile it would
 * have read. It is never reported as clean.
 */
import { access } from "node:fs/promises";
import path from "node:path";

const LOCKFILES = [
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "requirements.txt",
  "poetry.lock",
  "Pipfile.lock",
  "uv.lock",
];

/** Why the dependency check was not measured for the submission in `dir`. */
export async function describeDependencyCheck(
  dir: string,
  runtime: "node" | "python",
): Promise<{ check: string; reason: string }> {
  const found: string[] = [];
  for (const name of LOCKFILES) {
    try {
      await access(path.join(dir, name));
      found.push(name);
    } catch {
      // not there
    }
  }
  const what = found.length
    ? `${found.join(", ")} not checked`
    : `no lockfile in the submission (the ${runtime} challenge's own dependencies apply)`;
  return {
    check: "dependencies",
    reason: `no advisory source is available (scans run offline and no advisory database ships with the runner): ${what}`,
  };
}
