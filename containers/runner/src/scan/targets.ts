/**
 * @module runner/scan/targets
 * Picks what a scan looks at, under the platform's rules rather than the submission's: every
 * regular file with a scannable extension is copied to a scratch folder under a neutral name
 * (so no ignore file, folder name or path pattern of the submission can hide it), and every
 * file that is not scanned is listed with the reason. Symbolic links are never followed.
 */
import { copyFile, lstat, mkdir, readdir } from "node:fs/promises";
import path from "node:path";

/** Languages our rules cover, by file extension. */
export const SCANNED_EXTENSIONS: Readonly<Record<string, "javascript" | "typescript" | "python">> =
  {
    ".js": "javascript",
    ".cjs": "javascript",
    ".mjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".cts": "typescript",
    ".mts": "typescript",
    ".tsx": "typescript",
    ".py": "python",
  };

/** Code we have no rules for: reported as skipped, never silently passed. */
const UNSCANNED_CODE = new Set([
  ".html",
  ".htm",
  ".ejs",
  ".hbs",
  ".pug",
  ".vue",
  ".svelte",
  ".php",
  ".rb",
  ".go",
  ".java",
  ".sh",
  ".pyw",
]);

/** Folders that hold third-party code or tooling state, not the submission's own code. */
const DEPENDENCY_DIRS = new Set(["node_modules", ".git", ".venv", "venv", "__pycache__"]);

export interface TargetLimits {
  /** Files larger than this are skipped (with the reason). */
  maxFileBytes: number;
  /** At most this many files are scanned; the rest are skipped. */
  maxFiles: number;
}

export const DEFAULT_TARGET_LIMITS: TargetLimits = { maxFileBytes: 1024 * 1024, maxFiles: 5000 };

export interface ScanTarget {
  /** Path relative to the submission root, with forward slashes. */
  file: string;
  /** Path of the copy, relative to the scratch folder. */
  scratchPath: string;
  language: "javascript" | "typescript" | "python";
  bytes: number;
}

export interface CollectedTargets {
  targets: ScanTarget[];
  skipped: { file: string; reason: string }[];
}

/** Walks `dir`, copies scannable files into `scratchDir`, and lists what was left out. */
export async function collectTargets(
  dir: string,
  scratchDir: string,
  limits: TargetLimits = DEFAULT_TARGET_LIMITS,
): Promise<CollectedTargets> {
  const targets: ScanTarget[] = [];
  const skipped: { file: string; reason: string }[] = [];
  await mkdir(path.join(scratchDir, "src"), { recursive: true });

  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) {
        if (isScannable(entry.name)) {
          skipped.push({ file: relPath, reason: "symbolic link: not followed by the scanner" });
        }
        continue;
      }
      if (entry.isDirectory()) {
        if (DEPENDENCY_DIRS.has(entry.name)) {
          skipped.push({
            file: `${relPath}/`,
            reason: "dependency or tool folder: not the submission's own code",
          });
          continue;
        }
        await walk(relPath);
        continue;
      }
      if (!entry.isFile()) continue;
      const ext = path.extname(entry.name).toLowerCase();
      const language = SCANNED_EXTENSIONS[ext];
      if (!language) {
        if (UNSCANNED_CODE.has(ext)) {
          skipped.push({ file: relPath, reason: `no scan rules for ${ext} files` });
        }
        continue;
      }
      const { size } = await lstat(path.join(dir, relPath));
      if (size > limits.maxFileBytes) {
        skipped.push({
          file: relPath,
          reason: `file too large to scan (${size} bytes > ${limits.maxFileBytes})`,
        });
        continue;
      }
      if (targets.length >= limits.maxFiles) {
        skipped.push({ file: relPath, reason: `more than ${limits.maxFiles} files to scan` });
        continue;
      }
      const scratchPath = `src/${String(targets.length).padStart(6, "0")}${ext}`;
      await copyFile(path.join(dir, relPath), path.join(scratchDir, scratchPath));
      targets.push({ file: relPath, scratchPath, language, bytes: size });
    }
  };
  await walk("");
  return { targets, skipped };
}

function isScannable(name: string): boolean {
  return path.extname(name).toLowerCase() in SCANNED_EXTENSIONS;
}
