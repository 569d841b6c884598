/**
 * @module runner/challenge/prepare-options
 * The one way every caller (the HTTP service, the challenge CLI, a job, the tests) builds the
 * options bundles are prepared with and dependencies installed with, from the runner's
 * environment: so a lockfile is installed the same sandboxed way wherever it comes from.
 */
import path from "node:path";
import type { PrepareOptions } from "./bundle.ts";
import type { RunnerConfig } from "../config.ts";
import { resolveUnpackLimits } from "../job-limits.ts";
import type { CgroupSupport } from "../sandbox/cgroup.ts";
import type { RuntimePaths } from "../sandbox/runtime.ts";
import type { UidPool } from "../sandbox/uid-pool.ts";

/** What of the runner's environment preparing and installing need. */
export interface InstallerEnvironment {
  config: RunnerConfig;
  paths: RuntimePaths;
  cgroups: CgroupSupport | null;
  uidPool: UidPool;
}

/** The dependency installer of `environment`: its cache, registry, tools and uid pool. */
export function resolveInstaller(environment: InstallerEnvironment): PrepareOptions["installer"] {
  const { config, paths } = environment;
  return {
    context: {
      cacheDir: path.join(config.WORK_DIR, "deps"),
      registry: config.NPM_REGISTRY,
      npmCli: config.NPM_CLI,
      nodeBin: paths.nodeBin,
      harnessDir: paths.harnessDir,
      bwrapBin: config.BWRAP_BIN,
      cgroups: environment.cgroups,
      pypi: {
        index: config.PYPI_INDEX ?? null,
        fileOrigins: config.PYPI_FILE_HOSTS.split(",")
          .map((h) => h.trim())
          .filter((h) => h !== ""),
        pythonBin: paths.pythonBin,
        pipDir: paths.pythonTools,
      },
    },
    uidPool: environment.uidPool,
  };
}

/** Prepare options for `environment`: its work dir, unpack limits and dependency installer. */
export function resolvePrepareOptions(environment: InstallerEnvironment): PrepareOptions {
  return {
    workDir: environment.config.WORK_DIR,
    unpackLimits: resolveUnpackLimits(environment.config),
    installer: resolveInstaller(environment),
  };
}
