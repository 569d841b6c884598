/**
 * @module archive/admission
 * What makes a valid archive a submission the runner will run: its layout as the runner lays
 * it out (a single top-level folder is unwrapped; dependency folders are dropped, because a
 * submission cannot add dependencies), no code that no scanner or judge can read, and the
 * module the challenge's interface loads, and source an interpreter would decode otherwise than
 * the scanners read it (source-encoding.ts). Ingest applies it to a streamed archive and the
 * runner to the unpacked files, so an archive the runner would refuse is never stored. Pure:
 * no I/O.
 */
import { classifyFile, FileSampler, type FileSample } from "./code-sniff.ts";
import { checkSourceEncoding } from "./source-encoding.ts";
import type { ArchiveSink, FileSink } from "./delivery.ts";
import { err, ok, type Result } from "@bouts/result";

/** Folder names a submission may not ship: the runner removes them before anything runs. */
export const DEPENDENCY_DIRS: ReadonlySet<string> = new Set([
  "node_modules",
  ".venv",
  "venv",
  "site-packages",
  "__pycache__",
  ".pytest_cache",
]);

/** Why a valid archive is not a submission the challenge can run. */
export type AdmissionRefusal =
  | { reason: "unscannable-code"; entry: string; detail: string }
  | { reason: "source-encoding"; entry: string; detail: string }
  | { reason: "nothing-to-load"; entry: string; detail: string };

/** The admission rules' names, as refusals carry them in `reason`. */
export const ADMISSION_REASONS: ReadonlySet<string> = new Set([
  "unscannable-code",
  "source-encoding",
  "nothing-to-load",
]);

/** Whether a refusal is an admission rule's (rather than the archive validator's). */
export function isAdmissionRefusal<T extends { reason: string }>(
  r: T | AdmissionRefusal,
): r is AdmissionRefusal {
  return ADMISSION_REASONS.has(r.reason);
}

/** One line naming the entry and the rule. */
export function describeAdmissionRefusal(r: AdmissionRefusal): string {
  return `${r.reason} ${JSON.stringify(r.entry)}: ${r.detail}`;
}

/**
 * The folder the runner unwraps: the one top-level folder when every file and folder lies
 * inside it (and it is not a dependency folder), else none. Returned with its trailing slash,
 * or "".
 */
export function findWrapperFolder(files: readonly string[], dirs: readonly string[] = []): string {
  const tops = new Set([...files, ...dirs].map((p) => p.split("/")[0]!));
  if (tops.size !== 1) return "";
  const [top] = tops;
  if (DEPENDENCY_DIRS.has(top!) || files.some((p) => !p.includes("/"))) return "";
  return `${top}/`;
}

/** Whether a path (relative to the submission root) lies in a folder the runner removes. */
export function isInDependencyDir(relPath: string): boolean {
  return relPath
    .split("/")
    .slice(0, -1)
    .some((s) => DEPENDENCY_DIRS.has(s));
}

/** What admission needs: the module the challenge loads, relative to the submission root. */
export interface AdmissionRules {
  /** The interface module (`challenge.json` → `interface.module`); null when none is declared. */
  module: string | null;
}

/** What an archive held, as admission sees it. */
export interface AdmissionInput {
  files: readonly string[];
  /** Folder entries (folders implied by file paths need not be listed). */
  dirs?: readonly string[];
  /** Each file's sample by path; a file without one is judged by its name only. */
  samples: ReadonlyMap<string, FileSample>;
}

/**
 * Decides admission from the archive's paths and each file's sample. Files in dependency
 * folders are ignored, as the runner removes them.
 */
export function checkAdmission(
  { files, dirs = [], samples }: AdmissionInput,
  rules: AdmissionRules,
): Result<{ wrapper: string }, AdmissionRefusal> {
  const wrapper = findWrapperFolder(files, dirs);
  const kept: string[] = [];
  for (const path of [...files].sort()) {
    const rel = path.slice(wrapper.length);
    if (isInDependencyDir(rel)) continue;
    kept.push(rel);
    const reason = classifyFile(rel, samples.get(path) ?? null);
    if (reason) {
      return err({
        reason: "unscannable-code",
        entry: path,
        detail: `${reason}: a runtime can load it, but no scanner or judge can read it`,
      });
    }
    const sample = samples.get(path);
    if (sample?.size !== undefined && sample.firstInvalidUtf8 !== undefined) {
      const encoding = checkSourceEncoding(rel, {
        head: sample.head,
        size: sample.size,
        firstInvalidUtf8: sample.firstInvalidUtf8,
      });
      if (encoding) return err({ reason: "source-encoding", entry: path, detail: encoding });
    }
  }
  if (rules.module !== null && !kept.includes(rules.module)) {
    return err({
      reason: "nothing-to-load",
      entry: rules.module,
      detail:
        `the challenge loads ${rules.module} from the submission's root (or from its single ` +
        `top-level folder), and the archive has no such file: there is nothing to run`,
    });
  }
  return ok({ wrapper });
}

/**
 * A sink that samples every file for {@link checkAdmission} (in bounded memory: one sample per
 * file) and passes the bytes on to `inner` when there is one.
 */
export function createAdmissionSink(inner?: ArchiveSink): {
  sink: ArchiveSink;
  samples: ReadonlyMap<string, FileSample>;
  dirs: readonly string[];
} {
  const samples = new Map<string, FileSample>();
  const dirs: string[] = [];
  const sink: ArchiveSink = {
    async openFile(entry) {
      const sampler = new FileSampler();
      const next: FileSink | null = inner ? await inner.openFile(entry) : null;
      return {
        async write(chunk) {
          sampler.push(chunk);
          await next?.write(chunk);
        },
        async close() {
          samples.set(entry.path, sampler.sample());
          await next?.close();
        },
        async abort() {
          await next?.abort?.();
        },
      };
    },
    async directory(entry) {
      dirs.push(entry.path);
      await inner?.directory?.(entry);
    },
  };
  return { sink, samples, dirs };
}
