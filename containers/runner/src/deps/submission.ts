/**
 * @module runner/deps/submission
 * A submission's own dependencies: read from the files at its root with the one lockfile reader
 * (@bouts/dependencies), held to the challenge's policy, and installed by the sandboxed installer
 * (install.ts) when the challenge allows submissions to add dependencies. Invariants: every byte
 * read is bounded before it is decoded; a submission that declares dependencies where none are
 * allowed, or whose lock breaks a rule, is refused with the rule and the package, and nothing is
 * installed; the ingest role refuses the same submissions first where it can (docs/dependencies.md).
 */
import { closeSync, lstatSync, openSync, readSync } from "node:fs";
import path from "node:path";
import type { ChallengeManifest, RunDependencies } from "@bouts/contracts";
import {
  DEPENDENCY_FILE_NAMES,
  decodeDependencyFile,
  describeDependencyRefusal,
  findDeclaredDependencies,
  readDependencySet,
  resolveSubmissionPolicy,
  type DependencyFile,
  type DependencyPolicy,
  type DependencySet,
} from "@bouts/dependencies";
import { err, ok, type Result } from "@bouts/result";
import type { UidPool } from "../sandbox/uid-pool.ts";
import {
  installNpmDependencies,
  type InstallContext,
  type InstallError,
  type InstalledTree,
} from "./install.ts";
import { installPythonDependencies } from "./pip-install.ts";

/** A submission's installed dependencies: what its lock pins and the tree its subject mounts. */
export interface SubmissionDependencies {
  set: DependencySet;
  tree: InstalledTree;
}

/** What the report tells the judges of the packages a subject ran with: its direct ones. */
export function summarizeDependencies(
  set: DependencySet | null,
  source: RunDependencies["source"],
): RunDependencies | null {
  if (set === null) return null;
  return {
    source,
    ecosystem: set.ecosystem,
    lockfile: set.lockfile,
    direct: set.packages
      .filter((p) => p.direct && !p.dev)
      .slice(0, 2000)
      .map((p) => ({ name: p.name, version: p.version })),
    total: set.packages.length,
  };
}

/** The dependency policy a challenge's manifest sets for its submissions. */
export function resolveManifestPolicy(manifest: ChallengeManifest): DependencyPolicy {
  return resolveSubmissionPolicy({
    maxPackages: manifest.dependencies.submissions.maxPackages,
    allowNames: manifest.dependencies.allowNames,
    runtime: manifest.runtime,
  });
}

/** Reads the dependency files at the root of `dir`, each bounded by the policy in bytes. */
export function readRootFiles(
  dir: string,
  policy: DependencyPolicy,
): Result<DependencyFile[], InstallError> {
  const files: DependencyFile[] = [];
  for (const name of DEPENDENCY_FILE_NAMES) {
    const file = path.join(dir, name);
    let size: number;
    try {
      const st = lstatSync(file);
      if (!st.isFile()) continue;
      size = st.size;
    } catch {
      continue;
    }
    const keep = Math.min(size, policy.maxLockBytes);
    const bytes = Buffer.alloc(keep);
    const fd = openSync(file, "r");
    try {
      readSync(fd, bytes, 0, keep, 0);
    } finally {
      closeSync(fd);
    }
    const decoded = decodeDependencyFile(name, bytes, size, policy);
    if (!decoded.ok)
      return err({
        reason: "dependencies",
        rule: "lockfile-refused",
        package: decoded.error.package,
        detail: describeDependencyRefusal(decoded.error),
      });
    files.push(decoded.value);
  }
  return ok(files);
}

/**
 * Reads, checks and installs the dependencies the submission in `submissionDir` brings: null
 * when it brings none (its subject then mounts the challenge's), the installed tree otherwise.
 */
export async function prepareSubmissionDependencies(
  submissionDir: string,
  manifest: ChallengeManifest,
  installer: { context: Omit<InstallContext, "hostUid">; uidPool: UidPool },
): Promise<Result<SubmissionDependencies | null, InstallError>> {
  const policy = resolveManifestPolicy(manifest);
  const files = readRootFiles(submissionDir, policy);
  if (!files.ok) return files;
  const rules = manifest.dependencies.submissions;
  if (!rules.allowed) {
    const declared = findDeclaredDependencies(files.value);
    if (declared === null) return ok(null);
    return err({
      reason: "dependencies",
      rule: "not-allowed",
      package: null,
      detail: `this challenge does not allow submissions to add dependencies: ${declared.detail}`,
    });
  }
  const read = readDependencySet(files.value, policy);
  if (!read.ok)
    return err({
      reason: "dependencies",
      rule: "lockfile-refused",
      package: read.error[0]?.package ?? null,
      detail: read.error.map(describeDependencyRefusal).join("; "),
    });
  const set = read.value;
  if (set === null || set.packages.length === 0) return ok(null);
  if (set.ecosystem === "PyPI") {
    const lockFile = files.value.find((f) => f.path === set.lockfile);
    if (!lockFile)
      return err({
        reason: "dependencies",
        rule: "lockfile-refused",
        package: null,
        detail: `${set.lockfile} is needed`,
      });
    const lease = await installer.uidPool.acquire();
    try {
      const tree = await installPythonDependencies(
        {
          lockfile: set.lockfile,
          lockText: lockFile.text,
          packages: set.packages.filter((p) => !p.dev),
        },
        { maxInstalledBytes: rules.maxInstalledBytes, maxInstallMs: rules.maxInstallMs },
        { ...installer.context, hostUid: lease.uid },
      );
      if (!tree.ok) return tree;
      return ok({ set, tree: tree.value });
    } finally {
      lease.release();
    }
  }
  const manifestFile = files.value.find((f) => f.path === "package.json");
  const lockFile = files.value.find((f) => f.path === "package-lock.json");
  if (!manifestFile || !lockFile)
    return err({
      reason: "dependencies",
      rule: "lockfile-refused",
      package: null,
      detail: "package.json and package-lock.json are both needed",
    });
  const lease = await installer.uidPool.acquire();
  try {
    const tree = await installNpmDependencies(
      {
        manifestText: manifestFile.text,
        lockText: lockFile.text,
        packages: set.packages,
        omitDev: true,
      },
      { maxInstalledBytes: rules.maxInstalledBytes, maxInstallMs: rules.maxInstallMs },
      { ...installer.context, hostUid: lease.uid },
    );
    if (!tree.ok) return tree;
    return ok({ set, tree: tree.value });
  } finally {
    lease.release();
  }
}
