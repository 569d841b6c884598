/**
 * @module cli/pack
 * Packs a folder into the .tar.gz a submission uploads, leaving out what the validator
 * ignores anyway (dependency folders: node_modules, .venv … — `isInDependencyDir` of
 * @bouts/archive, the validator's own rule) and version-control folders (.git, .hg, .svn),
 * which are not part of a solution. Symbolic links are refused here: the validator refuses
 * them too, and following one could pack a file from outside the folder.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { isInDependencyDir, packTar, type PackedFile } from "@bouts/archive";

/** Folders left out besides the validator's dependency folders. */
export const VCS_DIRS = new Set([".git", ".hg", ".svn"]);

/** The files of `dir` a submission holds, as archive paths, sorted. */
export function listSubmissionFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const relPath = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path.join(dir, relPath));
      if (st.isSymbolicLink())
        throw new Error(`${relPath} is a symbolic link; archives hold files only`);
      if (st.isDirectory()) {
        if (VCS_DIRS.has(name) || isInDependencyDir(`${relPath}/x`)) continue;
        walk(relPath);
      } else if (st.isFile()) out.push(relPath);
    }
  };
  walk("");
  return out;
}

/** The folder as a deterministic .tar.gz, and the paths it holds. */
export function packFolder(dir: string): { archive: Uint8Array; files: string[] } {
  const files = listSubmissionFiles(dir);
  if (files.length === 0) throw new Error(`${dir} holds no files to submit`);
  const entries: PackedFile[] = files.map((p) => ({
    path: p,
    data: new Uint8Array(readFileSync(path.join(dir, p))),
  }));
  return { archive: new Uint8Array(gzipSync(packTar(entries))), files };
}
