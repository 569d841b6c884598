/**
 * `npm run npm-tarballs` (run by scripts/setup/30-npm-tarballs.sh): keeps in .cache/npm-tarballs/
 * every tarball the example challenges' lockfiles pin (each challenge's harness/package-lock.json
 * and each example submission's own), checked against the lock's sha512, so the local registry of
 * `npm start` and of the tests (@bouts/fixtures `startCachedNpmRegistry`) serves them with no
 * network. A missing tarball is fetched once with `npm pack <name>@<version>` (from npm's cache,
 * else npm's registry). Invariants: a file in the cache always has the bytes its lock names; a
 * lock that @bouts/dependencies refuses is reported and skipped, never half-fetched.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describeDependencyRefusal, readNpmLock, type ResolvedPackage } from "@bouts/dependencies";
import { computeSri, NPM_TARBALL_CACHE, tarballCacheName } from "@bouts/fixtures";

const ROOT = path.join(import.meta.dirname, "..");

/**
 * Every package.json + package-lock.json pair of the example challenges: each bundle's lock
 * (challenge.json `dependencies.lockfile`, with harness/package.json) and each example
 * submission's own.
 */
function findLocks(): { dir: string; manifest: string; lock: string }[] {
  const out: { dir: string; manifest: string; lock: string }[] = [];
  const challenges = path.join(ROOT, "challenges");
  for (const name of readdirSync(challenges).sort()) {
    const root = path.join(challenges, name);
    const manifestFile = path.join(root, "challenge.json");
    if (!existsSync(manifestFile)) continue;
    const bundle = JSON.parse(readFileSync(manifestFile, "utf8")) as {
      dependencies?: { lockfile?: string | null };
    };
    const lockfile = bundle.dependencies?.lockfile;
    if (lockfile)
      out.push({
        dir: root,
        manifest: path.join(root, "harness/package.json"),
        lock: path.join(root, lockfile),
      });
    const subs = path.join(root, "submissions");
    if (!existsSync(subs)) continue;
    for (const s of readdirSync(subs).sort()) {
      const dir = path.join(subs, s);
      const lock = path.join(dir, "package-lock.json");
      const manifest = path.join(dir, "package.json");
      if (existsSync(lock) && existsSync(manifest)) out.push({ dir, manifest, lock });
    }
  }
  return out;
}

/** Fetches one tarball into the cache; false (with the reason printed) when it cannot. */
function fetchTarball(pkg: ResolvedPackage, cache: string): boolean {
  const scratch = mkdtempSync(path.join(tmpdir(), "bouts-pack-"));
  try {
    const r = spawnSync(
      "npm",
      [
        "pack",
        `${pkg.name}@${pkg.version}`,
        "--pack-destination",
        scratch,
        "--silent",
        "--ignore-scripts",
      ],
      { cwd: scratch, encoding: "utf8" },
    );
    const file = readdirSync(scratch).find((f) => f.endsWith(".tgz"));
    if (r.status !== 0 || !file) {
      console.error(`npm-tarballs: npm pack ${pkg.name}@${pkg.version} failed: ${r.stderr.trim()}`);
      return false;
    }
    const bytes = readFileSync(path.join(scratch, file));
    if (computeSri(bytes) !== pkg.integrity) {
      console.error(
        `npm-tarballs: ${pkg.name}@${pkg.version}: the tarball is not the lock's (integrity differs)`,
      );
      return false;
    }
    renameSync(path.join(scratch, file), path.join(cache, tarballCacheName(pkg.name, pkg.version)));
    return true;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const cache = path.join(ROOT, NPM_TARBALL_CACHE);
mkdirSync(cache, { recursive: true });
let fetched = 0;
let present = 0;
let failed = 0;
for (const { dir, manifest, lock } of findLocks()) {
  const set = readNpmLock(readFileSync(manifest, "utf8"), readFileSync(lock, "utf8"));
  if (!set.ok) {
    console.error(
      `npm-tarballs: ${path.relative(ROOT, dir)}: lock refused: ${set.error.map(describeDependencyRefusal).join("; ")}`,
    );
    failed++;
    continue;
  }
  for (const pkg of set.value.packages) {
    const file = path.join(cache, tarballCacheName(pkg.name, pkg.version));
    if (existsSync(file) && computeSri(readFileSync(file)) === pkg.integrity) {
      present++;
      continue;
    }
    rmSync(file, { force: true });
    if (fetchTarball(pkg, cache)) fetched++;
    else failed++;
  }
}
console.log(
  `npm-tarballs: ${present} cached, ${fetched} fetched, ${failed} failed (${NPM_TARBALL_CACHE})`,
);
process.exitCode = failed > 0 ? 1 : 0;
