/**
 * @module ingest/submission-dependencies
 * What a submission brings as third-party dependencies, judged before anything is stored: its
 * root's package.json, package-lock.json, npm-shrinkwrap.json, requirements.txt and uv.lock
 * are caught while the archive streams through the validator, then read by @bouts/dependencies
 * under the challenge's `dependencies` (docs/dependencies.md). Invariants: at most
 * `maxLockBytes` + 1 bytes of at most ten such files are held, whatever the archive holds;
 * the files' bytes are decoded as UTF-8 or refused, never coerced; refusals are values.
 */
import type { ArchiveEntryInfo, ArchiveSink, FileSink } from "@bouts/archive";
import { ChallengeDependenciesSchema, type ChallengeDependencies } from "@bouts/contracts";
import {
  decodeDependencyFile,
  DEFAULT_DEPENDENCY_POLICY,
  DEPENDENCY_FILE_NAMES,
  findDeclaredDependencies,
  readDependencySet,
  resolveSubmissionPolicy,
  type DependencyFile,
  type DependencyPolicy,
  type DependencyRefusal,
} from "@bouts/dependencies";
import { ok, refuse, type Result } from "./result.ts";

const NAMES: ReadonlySet<string> = new Set(DEPENDENCY_FILE_NAMES);

/** One caught file: its first bytes (at most the bound + 1) and its whole size. */
interface Caught {
  chunks: Uint8Array[];
  kept: number;
  size: number;
}

/**
 * A sink that catches the dependency files an archive may hold at its root, or at the root of
 * its one top-level folder (which the runner unwraps; which one it is is known only at the
 * end). Files deeper down are not the submission's dependency files and are not kept.
 */
export function createDependencyCatcher(maxBytes = DEFAULT_DEPENDENCY_POLICY.maxLockBytes): {
  sink: ArchiveSink;
  filesAt(wrapper: string): { path: string; bytes: Uint8Array; size: number }[];
} {
  const caught = new Map<string, Caught>();
  // Files one folder down are caught for the first top-level folder only: a second one means
  // there is no wrapper, so none of them is at the submission's root.
  let wrapper: string | null | undefined;
  const ignore: FileSink = { write() {}, close() {} };

  function wanted(entry: ArchiveEntryInfo): boolean {
    const segments = entry.path.split("/");
    if (!NAMES.has(segments[segments.length - 1]!) || caught.has(entry.path)) return false;
    if (segments.length === 1) return true;
    if (segments.length !== 2 || wrapper === null) return false;
    if (wrapper === undefined) wrapper = segments[0]!;
    if (wrapper === segments[0]) return true;
    wrapper = null;
    for (const path of [...caught.keys()]) if (path.includes("/")) caught.delete(path);
    return false;
  }

  const sink: ArchiveSink = {
    openFile(entry) {
      if (!wanted(entry)) return ignore;
      const file: Caught = { chunks: [], kept: 0, size: 0 };
      caught.set(entry.path, file);
      return {
        write(chunk) {
          file.size += chunk.byteLength;
          const room = maxBytes + 1 - file.kept;
          if (room <= 0) return;
          const part = chunk.slice(0, room); // a copy: the reader may reuse its buffer
          file.chunks.push(part);
          file.kept += part.byteLength;
        },
        close() {},
      };
    },
  };

  return {
    sink,
    filesAt(prefix) {
      return DEPENDENCY_FILE_NAMES.flatMap((name) => {
        const file = caught.get(`${prefix}${name}`);
        if (!file) return [];
        const bytes = new Uint8Array(file.kept);
        let at = 0;
        for (const c of file.chunks) {
          bytes.set(c, at);
          at += c.byteLength;
        }
        return [{ path: name, bytes, size: file.size }];
      });
    },
  };
}

/** A challenge's stored `dependencies` (JSON text), with today's defaults; absent or unreadable: none allowed. */
export function parseStoredDependencies(json: string | null): ChallengeDependencies {
  let value: unknown;
  try {
    value = json === null ? undefined : JSON.parse(json);
  } catch {
    value = undefined; // unreadable: the defaults below
  }
  const parsed = ChallengeDependenciesSchema.safeParse(value);
  return parsed.success ? parsed.data : ChallengeDependenciesSchema.parse({ lockfile: null });
}

/** The policy a challenge holds its submissions' lockfiles to (@bouts/dependencies' one rule). */
export function policyOf(deps: ChallengeDependencies, runtime: string | null): DependencyPolicy {
  return resolveSubmissionPolicy({
    maxPackages: deps.submissions.maxPackages,
    allowNames: deps.allowNames,
    runtime,
  });
}

/**
 * Judges the dependency files at a submission's root: refused (422) when the challenge does
 * not allow dependencies and the files declare some, or when it does and the lockfile breaks
 * a rule of its policy; every refusal is listed.
 */
export function checkSubmissionDependencies(
  found: readonly { path: string; bytes: Uint8Array; size: number }[],
  challenge: { dependencies: string | null; runtime: string | null },
): Result<void> {
  const deps = parseStoredDependencies(challenge.dependencies);
  const policy = policyOf(deps, challenge.runtime);
  const files: DependencyFile[] = [];
  const unreadable: DependencyRefusal[] = [];
  for (const f of found) {
    const decoded = decodeDependencyFile(f.path, f.bytes, f.size, policy);
    if (decoded.ok) files.push(decoded.value);
    else unreadable.push(decoded.error);
  }
  if (unreadable.length > 0)
    return refuse({ reason: "dependencies-refused", refusals: unreadable });
  if (!deps.submissions.allowed) {
    const declared = findDeclaredDependencies(files);
    if (declared === null) return ok(undefined);
    return refuse({
      reason: "dependencies-not-allowed",
      file: declared.file,
      detail: declared.detail,
    });
  }
  const set = readDependencySet(files, policy);
  if (!set.ok) return refuse({ reason: "dependencies-refused", refusals: set.error });
  return ok(undefined);
}
