/**
 * @module runner/run/workspace
 * Builds a run's folders (submission/, work/, trusted/, chan/: see {@link Workspace}) from a
 * submission archive and a prepared challenge. Invariants: a submission cannot add dependencies
 * (node_modules, venvs, site-packages are removed) or change how it is tested (pristine files
 * overwrite its copies; differences are cited as evidence); the subject never sees a hidden test;
 * nothing here follows a link (the unpacker never creates one, and lstat is used throughout).
 */
import {
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import path from "node:path";
import { DEPENDENCY_DIRS } from "@bouts/archive";
import type { ChallengeManifest, DeliverableFound, SourceFile } from "@bouts/contracts";
import { listFiles, readTextPrefix } from "./files.ts";
import { collectSources } from "./judge-packet.ts";
import { unpackArchive, type UnpackError, type UnpackLimits } from "../archive/unpack.ts";
import { err, ok, type Result } from "@bouts/result";
import { findSourceEncodingProblems, findUnscannableCode } from "../scan/unscannable.ts";
import type { Observation } from "./analyze.ts";
import type { IntegrityTrigger } from "@bouts/contracts";

/** The built workspace. */
export interface Workspace {
  /** submission/: the files as submitted (scanned, read by judges), minus dependency folders. */
  submissionDir: string;
  /**
   * work/: the subject's /work, mounted read-only: the submission with the pristine harness files
   * laid over it and no tests at all.
   */
  workDir: string;
  /**
   * trusted/: the trusted test processes' /work: hidden tests, harness files and the bridge modules
   * (written once the subject reports its exports), and no submission file.
   */
  trustedDir: string;
  /** chan/: host folder shared as /chan, the subject's sockets (read-only for the tests). */
  channelDir: string;
  notes: string[];
  integrity: Observation<IntegrityTrigger>[];
  deliverables: DeliverableFound[];
  /** Source files as text for the judges (bounded). */
  sources: SourceFile[];
  files: number;
  bytes: number;
}

/** package.json keys that change how tests are run; other differences are harmless. */
const TEST_RELEVANT_PACKAGE_KEYS = [
  "scripts",
  "jest",
  "vitest",
  "mocha",
  "ava",
  "c8",
  "nyc",
  "imports",
  "exports",
  "type",
  "main",
];

/** Files that configure test runners; the harness never reads a submission's copy. */
const TEST_CONFIG_NAMES =
  /^(conftest\.py|pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml|sitecustomize\.py|usercustomize\.py|(vitest|jest|vite)\.config\.[cm]?[jt]s|\.mocharc\..*|\.taprc|\.env)$/;

function removeDependencyDirs(dir: string, prefix: string, removed: string[]): void {
  for (const e of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (DEPENDENCY_DIRS.has(e.name)) {
      rmSync(path.join(dir, rel), { recursive: true, force: true });
      removed.push(rel);
    } else removeDependencyDirs(dir, rel, removed);
  }
}

function readIfFile(p: string): Buffer | null {
  try {
    return lstatSync(p).isFile() ? readFileSync(p) : null;
  } catch {
    return null;
  }
}

function packageJsonDiffers(mine: Buffer, pristine: Buffer): string[] {
  try {
    const a = JSON.parse(mine.toString("utf8")) as Record<string, unknown>;
    const b = JSON.parse(pristine.toString("utf8")) as Record<string, unknown>;
    return TEST_RELEVANT_PACKAGE_KEYS.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  } catch {
    return ["(unparseable)"];
  }
}

function findDeliverable(root: string, rel: string): { path: string; bytes: number } | null {
  const exact = path.join(root, rel);
  try {
    const st = lstatSync(exact);
    if (st.isFile()) return { path: rel, bytes: st.size };
  } catch {
    // try a case-insensitive match in the same folder
  }
  const dir = path.posix.dirname(rel);
  const base = path.posix.basename(rel).toLowerCase();
  try {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (e.isFile() && e.name.toLowerCase() === base) {
        const p = dir === "." ? e.name : `${dir}/${e.name}`;
        return { path: p, bytes: lstatSync(path.join(root, p)).size };
      }
    }
  } catch {
    return null;
  }
  return null;
}

/** Unpacks the submission under `runDir` and lays the challenge's pristine files over a copy. */
export async function buildWorkspace(
  runDir: string,
  submission: Uint8Array,
  challengeRoot: string,
  manifest: ChallengeManifest,
  unpackLimits: UnpackLimits,
): Promise<Result<Workspace, UnpackError>> {
  mkdirSync(runDir, { recursive: true, mode: 0o755 });
  const submissionDir = path.join(runDir, "submission");
  const unpacked = await unpackArchive(submission, submissionDir, unpackLimits);
  if (!unpacked.ok) return unpacked;
  const notes: string[] = [];
  const integrity: Observation<IntegrityTrigger>[] = [];

  // An archive holding one folder is unwrapped: "my-solution/index.mjs" → "index.mjs".
  const top = readdirSync(submissionDir, { withFileTypes: true });
  if (top.length === 1 && top[0]!.isDirectory() && !DEPENDENCY_DIRS.has(top[0]!.name)) {
    const inner = path.join(runDir, "unwrapped");
    renameSync(path.join(submissionDir, top[0]!.name), inner);
    rmSync(submissionDir, { recursive: true });
    renameSync(inner, submissionDir);
    notes.push(`unwrapped the single top-level folder ${top[0]!.name}/`);
  }
  const removed: string[] = [];
  removeDependencyDirs(submissionDir, "", removed);
  if (removed.length > 0) {
    notes.push(
      `removed dependency folders (a submission cannot add dependencies): ${removed.join(", ")}`,
    );
  }

  // Code a runtime can load but no scanner or judge can read is refused, naming the file
  // (after dependency folders are gone, so a shipped node_modules is not held against it).
  const unscannable = await findUnscannableCode(submissionDir);
  if (unscannable.length > 0) {
    const [first, ...rest] = unscannable;
    return err({
      reason: "unscannable-code",
      entry: first!.file,
      detail: `${first!.reason}: a runtime can load it, but no scanner or judge can read it${nameOthers(rest)}`,
    });
  }

  // Source an interpreter would decode otherwise than the scanners and judges read it (a Python
  // coding declaration other than UTF-8, a UTF-16 byte order mark, bytes that are not UTF-8).
  const misencoded = await findSourceEncodingProblems(submissionDir);
  if (misencoded.length > 0) {
    const [first, ...rest] = misencoded;
    return err({
      reason: "source-encoding",
      entry: first!.file,
      detail: `${first!.reason}${nameOthers(rest)}`,
    });
  }

  // Nothing the challenge can load is not a submission: refused with the reason, never run or
  // scored (a gzip signature followed by junk used to score 10). Ingest refuses it at upload.
  const module = manifest.interface?.module;
  if (module && !lstatSync(path.join(submissionDir, module), { throwIfNoEntry: false })?.isFile()) {
    return err({
      reason: "nothing-to-load",
      entry: module,
      detail:
        `the challenge loads ${module} from the submission's root (or from its single ` +
        `top-level folder), and the archive has no such file: there is nothing to run`,
    });
  }

  const deliverables: DeliverableFound[] = manifest.deliverables.map((d) => {
    const found = findDeliverable(submissionDir, d.path);
    const text = found ? readTextPrefix(path.join(submissionDir, found.path), 64 * 1024) : null;
    return {
      name: d.path,
      required: d.required,
      present: found !== null,
      bytes: found?.bytes ?? 0,
      path: found?.path ?? null,
      content: text?.text ?? null,
    };
  });

  const workDir = path.join(runDir, "work");
  cpSync(submissionDir, workDir, { recursive: true, verbatimSymlinks: true, errorOnExist: true });

  // Hidden tests replace whatever the submission put in tests/.
  const submittedTests = listFilesIfDir(path.join(workDir, "tests"));
  for (const rel of submittedTests) {
    const mine = readIfFile(path.join(workDir, "tests", rel));
    const pristine = readIfFile(path.join(challengeRoot, "tests", rel));
    if (pristine && mine && !mine.equals(pristine)) {
      integrity.push({
        trigger: "test-file-modified",
        citation: `tests/${rel} differs from the hidden test; the pristine copy was used`,
      });
    } else if (!pristine) {
      notes.push(`tests/${rel} is not a hidden test and was not run`);
    }
  }
  // The subject never sees a hidden test: tests/ exists only in the trusted workspace.
  rmSync(path.join(workDir, "tests"), { recursive: true, force: true });
  const trustedDir = path.join(runDir, "trusted");
  mkdirSync(trustedDir, { recursive: true, mode: 0o755 });
  cpSync(path.join(challengeRoot, "tests"), path.join(trustedDir, "tests"), { recursive: true });
  const channelDir = path.join(runDir, "chan");
  mkdirSync(channelDir, { recursive: true, mode: 0o755 });

  const harnessDir = path.join(challengeRoot, "harness");
  const harnessFiles = listFilesIfDir(harnessDir);
  for (const rel of harnessFiles) {
    const target = path.join(workDir, rel);
    const mine = readIfFile(target);
    const pristine = readFileSync(path.join(harnessDir, rel));
    if (mine && !mine.equals(pristine)) {
      const keys =
        path.posix.basename(rel) === "package.json"
          ? packageJsonDiffers(mine, pristine)
          : ["content"];
      if (keys.length > 0) {
        integrity.push({
          trigger: "test-file-modified",
          citation: `${rel} (test configuration) changed${keys[0] === "content" ? "" : ` in ${keys.join(", ")}`}; the pristine copy was used`,
        });
      }
    }
    rmSync(target, { recursive: true, force: true });
    mkdirSync(path.dirname(target), { recursive: true });
    cpSync(path.join(harnessDir, rel), target);
    const trustedTarget = path.join(trustedDir, rel);
    mkdirSync(path.dirname(trustedTarget), { recursive: true });
    cpSync(path.join(harnessDir, rel), trustedTarget);
  }
  const ignoredConfig = listFiles(submissionDir).filter((f) =>
    TEST_CONFIG_NAMES.test(path.posix.basename(f)),
  );
  if (ignoredConfig.length > 0) {
    notes.push(
      `test configuration in the submission was not used: ${ignoredConfig.slice(0, 10).join(", ")}`,
    );
  }
  mkdirSync(path.join(workDir, "node_modules"), { recursive: true });
  mkdirSync(path.join(trustedDir, "node_modules"), { recursive: true });
  return ok({
    submissionDir,
    workDir,
    trustedDir,
    channelDir,
    notes,
    integrity,
    deliverables,
    sources: collectSources(submissionDir),
    files: unpacked.value.files,
    bytes: unpacked.value.bytes,
  });
}

function listFilesIfDir(dir: string): string[] {
  try {
    return lstatSync(dir).isDirectory() ? listFiles(dir) : [];
  } catch {
    return [];
  }
}

/** " (also: a, b, …)" naming up to five more refused files, or "" when there are none. */
function nameOthers(rest: readonly { file: string }[]): string {
  if (rest.length === 0) return "";
  const names = rest.slice(0, 5).map((f) => f.file);
  return ` (also: ${names.join(", ")}${rest.length > 5 ? ", …" : ""})`;
}
