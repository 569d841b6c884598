/**
 * `tsx scripts/check-links.ts [--root <dir>] [file.md …]`: checks every relative link and
 * `#anchor` in the repository's markdown (every file git knows of, or the files named) and exits
 * 1 listing the broken ones. Nothing inside fenced code, code spans or HTML comments is read as a
 * link; URLs with a scheme are never checked.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** Folders whose markdown is deliberately broken (the checker's own test fixtures). */
export const IGNORED_PREFIXES: readonly string[] = ["scripts/test/fixtures/check-links/"];

/** One link found in a markdown file. */
export interface MarkdownLink {
  /** The target as written, e.g. `../docs/design.md#3-security-cliff`. */
  target: string;
  /** 1-based line of the file the link is on. */
  line: number;
}

/** A link that does not resolve, and why. */
export interface BrokenLink extends MarkdownLink {
  /** The markdown file holding the link, relative to the root, with `/` separators. */
  file: string;
  reason: string;
}

/** Options of {@link checkLinks}. */
export interface CheckLinksOptions {
  /** Folder the file paths are relative to; a target starting with `/` starts here. */
  root: string;
  /** Markdown files to check, relative to `root`. */
  files: readonly string[];
  /**
   * Whether a path (relative to `root`, `/` separators, no trailing slash) may be linked to.
   * Default: it exists on disk.
   */
  isLinkable?: (relPath: string) => boolean;
}

// ─── Markdown scanning ───

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The file's lines with fenced code blocks and HTML comments blanked (line numbers kept), so
 * that nothing inside them is read as a link or a heading.
 */
export function blankCode(markdown: string): string[] {
  const lines = markdown.split(/\r?\n/);
  let fence: { char: string; length: number } | null = null;
  let inComment = false;
  return lines.map((line) => {
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) fence = null;
      return "";
    }
    let text = line;
    if (inComment) {
      const end = text.indexOf("-->");
      if (end === -1) return "";
      text = text.slice(end + 3);
      inComment = false;
    }
    text = text.replace(/<!--.*?-->/g, "");
    const open = text.indexOf("<!--");
    if (open !== -1) {
      inComment = true;
      text = text.slice(0, open);
    }
    const opening = FENCE.exec(text);
    if (opening) {
      const marker = opening[1]!;
      // A backtick fence's info string may not contain a backtick.
      if (marker[0] === "~" || !text.slice(opening[0].length).includes("`")) {
        fence = { char: marker[0]!, length: marker.length };
        return "";
      }
    }
    return text;
  });
}

/** The line without its code spans (`` `x` ``, ``` ``x`` ```), whose content is never a link. */
export function stripCodeSpans(line: string): string {
  return line.replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, (m) => " ".repeat(m.length));
}

/** Reads a link destination starting at `start` (just after `(`); null if there is none. */
function readDestination(text: string, start: number): string | null {
  let i = start;
  while (text[i] === " ") i++;
  if (text[i] === "<") {
    const end = text.indexOf(">", i);
    return end === -1 ? null : text.slice(i + 1, end);
  }
  let depth = 0;
  let j = i;
  for (; j < text.length; j++) {
    const c = text[j]!;
    if (c === "\\") {
      j++;
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")") {
      if (depth === 0) break;
      depth--;
    } else if (c === " " || c === "\t") break;
  }
  return j > i ? text.slice(i, j).replace(/\\(.)/g, "$1") : "";
}

/**
 * Every link target of a markdown text, with its line: inline links and images `[text](target)`,
 * reference definitions `[label]: target`, and `href` / `src` attributes of HTML tags. Uses of a
 * reference (`[text][label]`) are not read, so an undefined label is not reported.
 */
export function extractLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  blankCode(markdown).forEach((raw, index) => {
    const line = stripCodeSpans(raw);
    const lineNo = index + 1;
    const definition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (definition) {
      links.push({ target: definition[1]!.replace(/^<|>$/g, ""), line: lineNo });
      return;
    }
    for (let at = line.indexOf("]("); at !== -1; at = line.indexOf("](", at + 2)) {
      if (line[at - 1] === "\\") continue;
      const target = readDestination(line, at + 2);
      if (target !== null && target !== "") links.push({ target, line: lineNo });
    }
    for (const m of line.matchAll(/<[A-Za-z][^>]*?\s(?:href|src)\s*=\s*(["'])(.*?)\1/g)) {
      links.push({ target: m[2]!, line: lineNo });
    }
  });
  return links;
}

// ─── Anchors ───

/** Characters github-slugger removes: everything but letters, marks, digits, `_`, `-`, space. */
const SLUG_REMOVED = /[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc} -]/gu;

/** GitHub's anchor for a heading's plain text (before de-duplication). */
export function slugify(text: string): string {
  return text.toLowerCase().replace(SLUG_REMOVED, "").replace(/ /g, "-");
}

/** A heading's text as GitHub renders it: inline markdown and HTML tags removed. */
export function headingText(source: string): string {
  const spans: string[] = [];
  let text = source.replace(/(`+)(?!`)([\s\S]*?)(?<!`)\1(?!`)/g, (_m, _ticks, code: string) => {
    spans.push(code.trim() === "" ? code : code.replace(/^ (.*) $/, "$1"));
    return `\uE000${spans.length - 1}\uE000`;
  });
  text = text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, "$1")
    .replace(/<\/?[A-Za-z][^>]*>/g, "")
    .replace(/\\([!-/:-@[-`{-~])/g, "$1")
    .replace(/(\*{1,3})(\S(?:.*?\S)?)\1/g, "$2")
    .replace(/(^|[^\p{L}\p{N}_])(_{1,3})(\S(?:.*?\S)?)\2(?=$|[^\p{L}\p{N}_])/gu, "$1$3");
  // Code span contents are put back unchanged only at the end, so none of the above rewrites them.
  return text.replace(/\uE000(\d+)\uE000/g, (_m, i: string) => spans[Number(i)]!).trim();
}

/** Every anchor a markdown text defines: its headings' GitHub anchors and HTML ids / names. */
export function extractAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const add = (heading: string) => {
    const base = slugify(headingText(heading));
    let slug = base;
    // github-slugger: a repeated anchor gets -1, -2 … (skipping any already taken).
    while (anchors.has(slug)) {
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      slug = `${base}-${n}`;
    }
    anchors.add(slug);
  };
  const lines = blankCode(markdown);
  lines.forEach((line, i) => {
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) {
      add(atx[1] ?? "");
    } else if (
      i > 0 &&
      /^ {0,3}(=+|-+)[ \t]*$/.test(line) &&
      /\S/.test(lines[i - 1]!) &&
      !/^ {0,3}([-*+]|\d+[.)]|>|#|\|)/.test(lines[i - 1]!) &&
      (i < 2 || lines[i - 2]!.trim() === "" || /^ {0,3}(=+|-+)[ \t]*$/.test(lines[i - 2]!))
    ) {
      add(lines[i - 1]!.trim()); // setext heading (only a one-line paragraph, to stay simple)
    }
    for (const m of stripCodeSpans(line).matchAll(
      /<[A-Za-z][^>]*?\s(?:id|name)\s*=\s*(["'])(.*?)\1/g,
    )) {
      anchors.add(m[2]!);
    }
  });
  return anchors;
}

// ─── Checking ───

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Checks the links of `files`; returns the broken ones in file and line order. */
export function checkLinks(options: CheckLinksOptions): BrokenLink[] {
  const { root } = options;
  const isLinkable = options.isLinkable ?? ((rel) => existsSync(path.join(root, rel)));
  const anchorCache = new Map<string, Set<string>>();
  const anchorsOf = (rel: string): Set<string> => {
    let anchors = anchorCache.get(rel);
    if (!anchors) {
      anchors = extractAnchors(readFileSync(path.join(root, rel), "utf8"));
      anchorCache.set(rel, anchors);
    }
    return anchors;
  };

  const broken: BrokenLink[] = [];
  for (const file of [...options.files].map(toPosix).sort()) {
    const text = readFileSync(path.join(root, file), "utf8");
    for (const link of extractLinks(text)) {
      const reason = checkTarget(file, link.target, isLinkable, anchorsOf, root);
      if (reason) broken.push({ file, ...link, reason });
    }
  }
  return broken;
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Why `target` (in `file`) is broken, or null. A relative path must be linkable (a leading `/`
 * starts at the root); a `#fragment` into a markdown file (or this one) must name one of its
 * anchors (extractAnchors). URLs with a scheme and fragments into other files (`file.ts#L10`)
 * are not checked.
 */
function checkTarget(
  file: string,
  target: string,
  isLinkable: (rel: string) => boolean,
  anchorsOf: (rel: string) => Set<string>,
  root: string,
): string | null {
  if (SCHEME.test(target) || target.startsWith("//")) return null;
  const hash = target.indexOf("#");
  const pathPart = safeDecode((hash === -1 ? target : target.slice(0, hash)).split("?")[0]!);
  const fragment = hash === -1 ? null : safeDecode(target.slice(hash + 1));

  let rel = file;
  if (pathPart !== "") {
    const joined = pathPart.startsWith("/")
      ? path.posix.normalize(pathPart.slice(1))
      : path.posix.normalize(path.posix.join(path.posix.dirname(file), pathPart));
    rel = joined.replace(/\/+$/, "") || ".";
    if (rel === ".." || rel.startsWith("../")) return `${pathPart} is outside the repository`;
    if (rel !== "." && !isLinkable(rel)) return `${pathPart} does not exist`;
  }
  if (fragment === null || fragment === "") return null;
  if (!rel.toLowerCase().endsWith(".md") || statSync(path.join(root, rel)).isDirectory()) {
    return null;
  }
  return anchorsOf(rel).has(fragment)
    ? null
    : `#${fragment} is not an anchor of ${rel === file ? "this file" : rel}`;
}

// ─── The repository ───

function git(root: string, args: string[]): string[] {
  const r = spawnSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr || r.error}`);
  return r.stdout.split("\n").filter((l) => l !== "");
}

/**
 * Checks every markdown file git knows of under `root` (tracked, or new and not ignored),
 * except IGNORED_PREFIXES; a link may only point at a file git knows of or a folder holding one,
 * so a link to an ignored or deleted file is broken even if it exists on this machine.
 */
export function checkRepository(root: string): BrokenLink[] {
  const known = git(root, ["ls-files", "--cached", "--others", "--exclude-standard"]).filter((f) =>
    existsSync(path.join(root, f)),
  );
  const linkable = new Set<string>();
  for (const f of known) {
    linkable.add(f);
    for (let d = path.posix.dirname(f); d !== "."; d = path.posix.dirname(d)) linkable.add(d);
  }
  const files = known.filter(
    (f) => f.toLowerCase().endsWith(".md") && !IGNORED_PREFIXES.some((p) => f.startsWith(p)),
  );
  return checkLinks({ root, files, isLinkable: (rel) => linkable.has(rel) });
}

/** `file:line: target — reason`. */
export function formatBrokenLink(b: BrokenLink): string {
  return `${b.file}:${b.line}: ${b.target} — ${b.reason}`;
}

/** With file arguments (relative to the root), exactly those files; else checkRepository. */
function main(args: string[]): number {
  let root = path.resolve(import.meta.dirname, "..");
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--root") root = path.resolve(args[++i] ?? ".");
    else files.push(args[i]!);
  }
  const broken = files.length > 0 ? checkLinks({ root, files }) : checkRepository(root);
  for (const b of broken) console.error(formatBrokenLink(b));
  if (broken.length > 0) {
    console.error(`check-links: ${broken.length} broken link(s)`);
    return 1;
  }
  console.log("check-links: every relative link and anchor resolves");
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
