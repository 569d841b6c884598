/**
 * @module runner/scan/targets
 * Picks what a scan looks at, under the platform's rules rather than the submission's: every
 * regular file with a scannable extension, or with a node/python shebang whatever its name, is
 * copied to a scratch folder under a neutral name (so no ignore file, folder name or path
 * pattern of the submission can hide it), and every file a runtime could run that is not
 * scanned is listed with the reason: compiled and native code (unscannable.ts), zip archives,
 * code in languages we have no rules for, scripts for other interpreters, and files a
 * package.json makes Node load as code. Symbolic links are never followed.
 */
import { copyFile, lstat, mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { sniffFile, unscannableByName } from "./unscannable.ts";

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
    ".pyw": "python",
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
  ".bash",
  ".zsh",
  ".ksh",
  ".pl",
  ".pm",
  ".pyx",
  ".mdx",
  ".astro",
  ".njk",
  ".mustache",
  ".liquid",
  ".jinja",
  ".jinja2",
  ".j2",
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
  const packageJsons: string[] = [];
  await mkdir(path.join(scratchDir, "src"), { recursive: true });

  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) {
        if (isScannable(entry.name) || unscannableByName(relPath)) {
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
      if (entry.name === "package.json") packageJsons.push(relPath);
      const byName = unscannableByName(relPath);
      if (byName) {
        skipped.push({ file: relPath, reason: unreadable(byName) });
        continue;
      }
      const sniffed = await sniffFile(path.join(dir, relPath));
      if (!sniffed) continue;
      if (sniffed.reason) {
        skipped.push({ file: relPath, reason: unreadable(sniffed.reason) });
        continue;
      }
      const ext = path.extname(entry.name).toLowerCase();
      let language = SCANNED_EXTENSIONS[ext];
      // Semgrep picks a file's language by its extension: .pyw is Python under another name.
      let scratchExt = ext === ".pyw" ? ".py" : ext;
      if (!language) {
        const shebang = readShebang(sniffed.head);
        if (sniffed.zip) {
          skipped.push({
            file: relPath,
            reason:
              "zip archive: its contents are not scanned, and Python can import code from a zip archive",
          });
          continue;
        }
        if (shebang && "language" in shebang) {
          language = shebang.language;
          scratchExt =
            shebang.language === "python"
              ? ".py"
              : shebang.language === "typescript"
                ? ".ts"
                : ".js";
        } else if (shebang) {
          skipped.push({
            file: relPath,
            reason: `script for ${shebang.interpreter.slice(0, 100)} (by its #! line): no scan rules for it`,
          });
          continue;
        } else {
          if (UNSCANNED_CODE.has(ext)) {
            skipped.push({ file: relPath, reason: `no scan rules for ${ext} files` });
          }
          continue;
        }
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
      const scratchPath = `src/${String(targets.length).padStart(6, "0")}${scratchExt}`;
      await copyFile(path.join(dir, relPath), path.join(scratchDir, scratchPath));
      targets.push({ file: relPath, scratchPath, language, bytes: size });
    }
  };
  await walk("");
  const scanned = new Set(targets.map((t) => t.file));
  const listed = new Set(skipped.map((s) => s.file));
  for (const pkg of packageJsons) {
    for (const s of await packageEntryPoints(dir, pkg, limits.maxFileBytes)) {
      if (scanned.has(s.file) || listed.has(s.file)) continue;
      listed.add(s.file);
      skipped.push(s);
    }
  }
  return { targets, skipped };
}

function isScannable(name: string): boolean {
  return path.extname(name).toLowerCase() in SCANNED_EXTENSIONS;
}

function unreadable(what: string): string {
  return `${what}: a runtime can load it, but no scanner or judge can read it`;
}

/** Interpreters whose scripts our rules cover, by the name on the #! line. */
const SHEBANG_LANGUAGES: readonly [RegExp, ScanTarget["language"]][] = [
  [/^(node|nodejs)$/, "javascript"],
  [/^(tsx|ts-node|ts-node-esm|bun|deno)$/, "typescript"],
  [/^(python|pypy)(\d+(\.\d+)*)?$/, "python"],
];

/** The interpreter a "#!" first line names, and our language for it when we have rules. */
export function readShebang(
  head: Uint8Array,
): { language: ScanTarget["language"] } | { interpreter: string } | null {
  if (head.length < 2 || head[0] !== 0x23 || head[1] !== 0x21) return null;
  const end = head.indexOf(0x0a);
  const line = Buffer.from(head.subarray(2, end < 0 ? head.length : end))
    .toString("utf8")
    .trim();
  const words = line.split(/\s+/).filter(Boolean);
  let program = path.posix.basename(words[0] ?? "");
  if (program === "env") {
    // #!/usr/bin/env [-S] [-i] [NAME=value …] program [args]
    program = path.posix.basename(
      words.slice(1).find((w) => !w.startsWith("-") && !w.includes("=")) ?? "",
    );
  }
  for (const [re, language] of SHEBANG_LANGUAGES) if (re.test(program)) return { language };
  return { interpreter: line || "an unnamed interpreter" };
}

/** The fields of a package.json that make Node load a file as code. */
const ENTRY_FIELDS = ["main", "bin", "exports", "imports"] as const;

/**
 * Files a package.json maps module names to ("main", "bin", "exports", "imports") that exist
 * but are not scannable: Node loads them as code whatever their extension. A subpath pattern
 * ("./*": "./lib/*.txt") that can name such files is listed against the package.json.
 */
async function packageEntryPoints(
  dir: string,
  pkgRel: string,
  maxBytes: number,
): Promise<{ file: string; reason: string }[]> {
  let pkg: unknown;
  try {
    const { size } = await lstat(path.join(dir, pkgRel));
    if (size > maxBytes) return [];
    pkg = JSON.parse(await readFile(path.join(dir, pkgRel), "utf8"));
  } catch {
    return [];
  }
  if (typeof pkg !== "object" || pkg === null) return [];
  const pkgDir = path.posix.dirname(pkgRel);
  const out: { file: string; reason: string }[] = [];
  for (const field of ENTRY_FIELDS) {
    for (const target of stringsIn((pkg as Record<string, unknown>)[field])) {
      // "main" and "bin" are paths; "exports"/"imports" targets inside the package start "./".
      if ((field === "exports" || field === "imports") && !target.startsWith("./")) continue;
      const rel = path.posix.normalize(path.posix.join(pkgDir, target));
      if (rel.startsWith("../") || rel === "..") continue;
      if (target.includes("*")) {
        const ext = path.posix.extname(target.slice(target.lastIndexOf("*") + 1)).toLowerCase();
        if (ext in SCANNED_EXTENSIONS || ext === ".json" || ext === ".node") continue;
        out.push({
          file: pkgRel,
          reason: `its "${field}" maps module names to ${target.slice(0, 200)}: Node loads what it names as code, but such files are not scanned`,
        });
        continue;
      }
      const ext = path.posix.extname(rel).toLowerCase();
      if (ext in SCANNED_EXTENSIONS || ext === ".json") continue;
      try {
        if (!(await lstat(path.join(dir, rel))).isFile()) continue;
      } catch {
        continue;
      }
      out.push({
        file: rel,
        reason: `${pkgRel} "${field}" makes Node load it as code, but it is not scanned`,
      });
    }
  }
  return out;
}

function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}
