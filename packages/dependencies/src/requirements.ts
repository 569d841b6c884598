/**
 * @module dependencies/requirements
 * Reads a hashed requirements.txt (as `pip install --require-hashes` takes it, and as
 * `uv export` and `pip-compile --generate-hashes` write it): every requirement one project
 * pinned with `==` to a PEP 440 version, with at least one `--hash=sha256:<64 hex>`. Lines are
 * joined at a trailing backslash and cut at a comment as pip does. Refused, each naming the line
 * and the project: editables, URLs and paths, includes, index options and any other option.
 * Pure: no I/O.
 */
import { err, ok, type Result } from "@bouts/result";
import { isPythonName, isPythonVersion, normalizePythonName } from "./pep.ts";
import {
  invalid,
  invalidCount,
  invalidSize,
  invalidTyposquat,
  type DependencyRefusal,
} from "./refusal.ts";
import { countUtf8Bytes, quote } from "./text.ts";
import { findTyposquatTarget } from "./typosquat.ts";
import {
  byNameAndVersion,
  type DependencyPolicy,
  type DependencySet,
  type ResolvedPackage,
} from "./types.ts";

const FILE = "requirements.txt";

/** One logical line: the text (continuations joined, comment cut) and its first line number. */
export interface RequirementLine {
  line: number;
  text: string;
}

// pip's COMMENT_RE: a `#` at the start or after whitespace starts a comment.
const COMMENT = /(^|\s+)#.*$/;

/**
 * The logical lines of a requirements file, as pip reads them: a line ending in a backslash
 * continues on the next, a comment runs to the end of its line, blank lines are dropped.
 */
export function splitRequirementLines(text: string): RequirementLine[] {
  const physical = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  const out: RequirementLine[] = [];
  let pending: { line: number; parts: string[] } | null = null;
  for (const [i, raw] of physical.entries()) {
    const continues = raw.endsWith("\\") && !COMMENT.test(raw);
    if (continues) {
      pending ??= { line: i + 1, parts: [] };
      pending.parts.push(raw.slice(0, -1));
      continue;
    }
    const joined: { line: number; parts: string[] } = pending ?? { line: i + 1, parts: [] };
    joined.parts.push(raw);
    pending = null;
    const logical = joined.parts.join("").replace(COMMENT, "").trim();
    if (logical !== "") out.push({ line: joined.line, text: logical });
  }
  if (pending) {
    const logical = pending.parts.join("").replace(COMMENT, "").trim();
    if (logical !== "") out.push({ line: pending.line, text: logical });
  }
  return out;
}

const INCLUDE_OPTIONS = new Set(["-r", "--requirement", "-c", "--constraint"]);
const INDEX_OPTIONS = new Set([
  "-i",
  "--index-url",
  "--extra-index-url",
  "-f",
  "--find-links",
  "--trusted-host",
  "--no-index",
]);
const EDITABLE_OPTIONS = new Set(["-e", "--editable"]);
// `--require-hashes` only tightens what pip accepts.
const HARMLESS_OPTIONS = new Set(["--require-hashes"]);

/** The option a line starts with, as pip spells it (`-r` of `-rfile`, `--index-url` of `--index-url=…`). */
function optionName(token: string): string {
  if (token.startsWith("--")) return token.split("=")[0]!;
  return token.slice(0, 2);
}

/** Refuses a line that is a global option (it starts with `-`); null when it is harmless. */
function refuseOption(option: string, line: number): DependencyRefusal | null {
  if (HARMLESS_OPTIONS.has(option)) return null;
  if (EDITABLE_OPTIONS.has(option))
    return invalid(
      "non-registry-source",
      FILE,
      null,
      `${option} installs an editable local or VCS checkout, not a registry release`,
      line,
    );
  if (INCLUDE_OPTIONS.has(option))
    return invalid(
      "include",
      FILE,
      null,
      `${option} reads another file: every requirement must be in requirements.txt itself`,
      line,
    );
  if (INDEX_OPTIONS.has(option))
    return invalid(
      "index-option",
      FILE,
      null,
      `${option} changes where packages come from: only the challenge's index is used`,
      line,
    );
  return invalid("unsupported-option", FILE, null, `${option} is not accepted here`, line);
}

// name, optional extras, then the rest (specifiers and markers).
const REQUIREMENT = /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$/s;
const HASH_VALUE = /^(sha256|sha384|sha512):([0-9a-f]+)$/i;
const HASH_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

/** What a requirement line pins, or every rule it breaks. */
function readRequirement(
  { line, text }: RequirementLine,
  policy: DependencyPolicy,
): Result<ResolvedPackage, DependencyRefusal[]> {
  const tokens = text.split(/\s+/);
  const firstOption = tokens.findIndex((t) => t.startsWith("-"));
  const requirement = (firstOption === -1 ? tokens : tokens.slice(0, firstOption)).join(" ");
  const options = firstOption === -1 ? [] : tokens.slice(firstOption);

  const parts = REQUIREMENT.exec(requirement);
  const named = parts && isPythonName(parts[1]!) ? normalizePythonName(parts[1]!) : null;
  if (named !== null && parts![3]!.trim().startsWith("@"))
    return err([
      invalid(
        "non-registry-source",
        FILE,
        named,
        `${named} is a direct reference (name @ URL), not a pinned registry release`,
        line,
      ),
    ]);
  // A URL, a path or an archive: a direct reference, whatever its name says.
  if (/^[a-z][a-z0-9+.-]*:\/\/|^[./~]|[\\/]|\.(whl|zip|tar\.gz|tgz)$/i.test(requirement))
    return err([
      invalid(
        "non-registry-source",
        FILE,
        null,
        `${quote(requirement)} is a URL or a path, not a pinned registry release`,
        line,
      ),
    ]);
  if (named === null)
    return err([
      invalid("unreadable", FILE, null, `${quote(requirement)} is not a requirement`, line),
    ]);
  const name = named;
  const rest = parts![3]!.trim();

  const bad: DependencyRefusal[] = [];
  const version = readPin(rest.split(";")[0]!.trim());
  if (!version.ok) bad.push(invalid("inexact-version", FILE, name, version.error, line));

  const hashes: string[] = [];
  let weak: string | null = null;
  for (let i = 0; i < options.length; i++) {
    const token = options[i]!;
    let value: string | undefined;
    if (token.startsWith("--hash=")) value = token.slice("--hash=".length);
    else if (token === "--hash") value = options[++i];
    else {
      if (token.startsWith("-"))
        bad.push(
          invalid(
            "unsupported-option",
            FILE,
            name,
            `${quote(optionName(token))} is not accepted on a requirement (only --hash)`,
            line,
          ),
        );
      continue; // an option's own argument was refused with it
    }
    const hash = HASH_VALUE.exec(value ?? "");
    const algorithm = hash?.[1]?.toLowerCase();
    if (!hash || !algorithm || hash[2]!.length !== HASH_HEX_LENGTH[algorithm]) {
      weak ??= value ?? "";
      continue;
    }
    if (algorithm === "sha256") hashes.push(`sha256:${hash[2]!.toLowerCase()}`);
  }
  if (weak !== null)
    bad.push(
      invalid(
        "weak-integrity",
        FILE,
        name,
        `--hash=${quote(weak, 40)} is not a sha256, sha384 or sha512 hash in hex`,
        line,
      ),
    );
  else if (hashes.length === 0)
    bad.push(
      invalid(
        "missing-integrity",
        FILE,
        name,
        `${name} has no --hash=sha256:<64 hex digits> (generate the file with hashes)`,
        line,
      ),
    );
  const resembles = findTyposquatTarget(name, "PyPI", policy.allowNames);
  if (resembles !== null) bad.push(invalidTyposquat(FILE, name, resembles, line));
  if (bad.length > 0 || !version.ok) return err(bad);
  return ok({
    ecosystem: "PyPI",
    name,
    version: version.value,
    integrity: [...new Set(hashes)].sort().join(" "),
    resolved: null,
    direct: true,
    dev: false,
    path: `${FILE}:${line}`,
  });
}

/** The one version `==` pins in a specifier list (parentheses allowed), or why it is not one. */
function readPin(specifiers: string): Result<string, string> {
  const inner = specifiers.replace(/^\((.*)\)$/s, "$1").trim();
  if (inner === "") return err("no version: pin it with ==<version>");
  const list = inner.split(",").map((s) => s.trim());
  const pin = /^==\s*([^\s=*]+)$/.exec(list[0] ?? "");
  if (list.length !== 1 || !pin)
    return err(`${quote(inner)} is not one exact version: pin it with ==<version>`);
  if (!isPythonVersion(pin[1]!)) return err(`${quote(pin[1])} is not a PEP 440 version`);
  return ok(pin[1]!);
}

/**
 * Reads a hashed requirements.txt into the releases it pins (every one `direct`: the file
 * names each), or every refusal, each naming the line and, where it has one, the project.
 * @example
 * readRequirements("requests==2.32.3 \\\n  --hash=sha256:70…\n", DEFAULT_DEPENDENCY_POLICY);
 */
export function readRequirements(
  text: string,
  policy: DependencyPolicy,
): Result<DependencySet, DependencyRefusal[]> {
  const bytes = countUtf8Bytes(text);
  if (bytes > policy.maxLockBytes) return err([invalidSize(FILE, bytes, policy.maxLockBytes)]);
  const lines = splitRequirementLines(text);
  const refusals: DependencyRefusal[] = [];
  const requirements: RequirementLine[] = [];
  for (const l of lines) {
    if (l.text.startsWith("-")) {
      const refused = refuseOption(optionName(l.text.split(/\s+/)[0]!), l.line);
      if (refused) refusals.push(refused);
    } else requirements.push(l);
  }
  if (requirements.length > policy.maxPackages)
    return err([...refusals, invalidCount(FILE, requirements.length, policy.maxPackages)]);
  const packages: ResolvedPackage[] = [];
  // A project may be pinned twice only under environment markers (`; python_version < "3.12"`),
  // as `uv export` writes a project whose version differs by platform.
  const seen = new Map<string, { line: number; marked: boolean }>();
  for (const l of requirements) {
    const read = readRequirement(l, policy);
    if (!read.ok) {
      refusals.push(...read.error);
      continue;
    }
    const marked = l.text.includes(";");
    const earlier = seen.get(read.value.name);
    if (earlier !== undefined && !(earlier.marked && marked)) {
      refusals.push(
        invalid(
          "duplicate-package",
          FILE,
          read.value.name,
          `${read.value.name} is already pinned on line ${earlier.line}`,
          l.line,
        ),
      );
      continue;
    }
    seen.set(read.value.name, { line: l.line, marked });
    packages.push(read.value);
  }
  if (refusals.length > 0) return err(refusals);
  packages.sort(byNameAndVersion);
  return ok({ ecosystem: "PyPI", lockfile: FILE, packages });
}
