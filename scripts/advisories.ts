/**
 * `npm run advisories:refresh -- --pypa <dir> --npm <dir> [--pypa-commit <sha>]
 * [--npm-commit <sha>] [--out <file>]`: builds the runner's offline advisory snapshot
 * (containers/runner/advisories/, docs/dependencies.md, "Advisories") from a copy of the PyPA
 * advisory database and of the Node.js security WG's `vuln/npm` records. Invariants: the output
 * is deterministic (sorted records, fixed key order, no build time in it) and passes the schema
 * the runner loads it with; a record of the wrong shape stops the build, naming it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { AdvisorySnapshotSchema } from "../containers/runner/src/scan/advisories/model.ts";
import type {
  Advisory,
  AdvisorySnapshot,
  SnapshotSource,
} from "../containers/runner/src/scan/advisories/model.ts";
import {
  boundSummary,
  readOsvRecord,
} from "../containers/runner/src/scan/advisories/osv-record.ts";

const ROOT = path.join(import.meta.dirname, "..");
/** Where the runner reads the snapshot from (`DEFAULT_SNAPSHOT_FILE`). */
export const SNAPSHOT_FILE = path.join(ROOT, "containers/runner/advisories/snapshot.json.gz");

const MIT_NOTICE = `The MIT License (MIT)

Copyright (c) Node.js Foundation

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the "Software"), to deal in the Software without restriction, including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.`;

/** What one source folder gave. */
export interface SourceReading {
  source: SnapshotSource;
  advisories: Advisory[];
  /** Withdrawn records, or records naming no npm/PyPI package: not kept. */
  skipped: number;
}

// ─── PyPA (OSV as YAML) ───

/**
 * Reads `<dir>/vulns/<project>/*.yaml`. YAML's failsafe schema keeps every scalar a string, so
 * a version such as `1.10` is never read as the number 1.1.
 */
export function readPypa(dir: string, commit: string | undefined): SourceReading {
  const vulns = path.join(dir, "vulns");
  const advisories: Advisory[] = [];
  let skipped = 0;
  let newest = "";
  let records = 0;
  for (const project of sortedNames(vulns)) {
    const folder = path.join(vulns, project);
    if (!statSync(folder).isDirectory()) continue;
    for (const file of sortedNames(folder).filter((f) => f.endsWith(".yaml"))) {
      const where = `${path.relative(dir, path.join(folder, file))}`;
      const record: unknown = parseYaml(readFileSync(path.join(folder, file), "utf8"), {
        schema: "failsafe",
      });
      const read = readOsvRecord(record, "pypa");
      if (!read.ok) throw new Error(`${where}: ${read.error}`);
      records += 1;
      newest = later(newest, read.value.modified, where);
      if (read.value.advisory) advisories.push(read.value.advisory);
      else skipped += 1;
    }
  }
  return {
    source: {
      id: "pypa",
      name: "Python Packaging Authority (PyPA) Advisory Database",
      url: "https://github.com/pypa/advisory-database",
      licence: "CC-BY-4.0",
      attribution:
        "Contains vulnerability data from the PyPA Advisory Database (https://github.com/pypa/advisory-database), © its contributors, licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/). Changed: only the fields the dependency check needs are kept, summaries are cut to 200 characters, withdrawn records and GIT ranges are left out, package names are normalized per PEP 503.",
      ...(commit ? { commit } : {}),
      records,
      ...(newest ? { newest } : {}),
    },
    advisories,
    skipped,
  };
}

// ─── Node.js security WG (vuln/npm/*.json) ───

const NpmRecordSchema = z.object({
  id: z.int().min(1),
  updated_at: z.string(),
  title: z.string(),
  module_name: z.string().min(1),
  cves: z.array(z.string()),
  vulnerable_versions: z.string().min(1),
  patched_versions: z.string().min(1).nullable().optional(),
  overview: z.string().optional(),
  cvss_vector: z.string().nullable().optional(),
  // A few records give -1 for "no score".
  cvss_score: z.number().nullable().optional(),
});

/** Reads `<dir>/vuln/npm/<n>.json` (its `index.json` repeats them and is not read). */
export function readNodeSecurityWg(dir: string, commit: string | undefined): SourceReading {
  const folder = path.join(dir, "vuln/npm");
  const advisories: Advisory[] = [];
  let newest = "";
  let records = 0;
  for (const file of sortedNames(folder).filter((f) => /^\d+\.json$/.test(f))) {
    const where = `vuln/npm/${file}`;
    const parsed = NpmRecordSchema.safeParse(
      JSON.parse(readFileSync(path.join(folder, file), "utf8")),
    );
    if (!parsed.success)
      throw new Error(`${where}: ${parsed.error.issues[0]?.path.join(".")} is not as expected`);
    const r = parsed.data;
    records += 1;
    newest = later(newest, r.updated_at, where);
    const cves = [...new Set(r.cves)].filter((c) => /^CVE-\d{4}-\d{4,}$/.test(c)).sort();
    const cvss: Advisory["cvss"] = {};
    if (typeof r.cvss_score === "number" && r.cvss_score >= 0 && r.cvss_score <= 10)
      cvss.score = r.cvss_score;
    if (typeof r.cvss_vector === "string" && /^CVSS:3\.[01]\//.test(r.cvss_vector))
      cvss.vector = r.cvss_vector;
    advisories.push({
      id: `NSWG-ECO-${r.id}`,
      ...(cves.length ? { aliases: cves } : {}),
      summary: boundSummary(r.title || r.overview || ""),
      source: "nodejs-security-wg",
      affected: [
        {
          ecosystem: "npm",
          package: r.module_name,
          semverRange: r.vulnerable_versions,
          ...(r.patched_versions ? { patchedRange: r.patched_versions } : {}),
        },
      ],
      ...(cvss.score !== undefined || cvss.vector !== undefined ? { cvss } : {}),
    });
  }
  return {
    source: {
      id: "nodejs-security-wg",
      name: "Node.js Security Working Group vulnerability database (ecosystem reports, vuln/npm)",
      url: "https://github.com/nodejs/security-wg",
      licence: "MIT",
      attribution: `Contains the npm ecosystem reports (NSWG-ECO) of the Node.js Security Working Group (https://github.com/nodejs/security-wg), Copyright (c) Node.js Foundation, MIT licence (notice below). Older advisories only: its newest record was updated on ${newest.slice(0, 10) || "an unknown date"} (ecosystem reports are no longer added there), so it knows nothing published since. Changed: only the fields the dependency check needs are kept; the vulnerable range is kept as its semver string (converting arbitrary semver ranges to OSV events is lossy).`,
      notice: MIT_NOTICE,
      ...(commit ? { commit } : {}),
      records,
      ...(newest ? { newest } : {}),
    },
    advisories,
    skipped: 0,
  };
}

// ─── The snapshot ───

/** The snapshot of the given sources: advisories sorted by ecosystem, package and id. */
export function buildSnapshot(readings: readonly SourceReading[]): AdvisorySnapshot {
  const advisories = readings.flatMap((r) => r.advisories);
  const key = (a: Advisory) => {
    const e = a.affected[0]!;
    return `${e.ecosystem}\u0000${e.package}\u0000${a.id}`;
  };
  advisories.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const ids = new Set<string>();
  for (const a of advisories) {
    if (ids.has(a.id)) throw new Error(`advisory ${a.id} appears twice`);
    ids.add(a.id);
  }
  const asOf = readings.reduce((max, r) => later(max, r.source.newest ?? "", r.source.id), "");
  if (!asOf) throw new Error("no record has a modified date");
  // Parsing through the schema checks every bound and fixes the key order to the schema's.
  return AdvisorySnapshotSchema.parse({
    format: 1,
    asOf,
    sources: readings.map((r) => r.source),
    advisories,
  });
}

/** The snapshot as text: one advisory per line, so a refresh reads as a diff when unpacked. */
export function serializeSnapshot(snapshot: AdvisorySnapshot): string {
  const { advisories, ...head } = snapshot;
  const top = JSON.stringify(head).slice(0, -1);
  return `${top},"advisories":[\n${advisories.map((a) => JSON.stringify(a)).join(",\n")}\n]}\n`;
}

/** Gzip with no file name and a zero time stamp: the same text gives the same bytes. */
export function packSnapshot(text: string): Buffer {
  return gzipSync(Buffer.from(text, "utf8"), { level: 9 });
}

/** A human-readable notice of the sources, written beside the (gzipped) snapshot. */
export function renderNotice(snapshot: AdvisorySnapshot): string {
  const lines = [
    "# Advisory snapshot: sources and licences",
    "",
    "Generated by `npm run advisories:refresh` with the snapshot beside it; do not edit.",
    `Data as of ${snapshot.asOf} (the newest record's modified date); ${snapshot.advisories.length} advisories.`,
  ];
  for (const s of snapshot.sources) {
    lines.push("", `## ${s.name}`, "", `- source: ${s.url}`, `- licence: ${s.licence}`);
    if (s.commit) lines.push(`- commit: ${s.commit}`);
    lines.push(`- records read: ${s.records}; newest modified: ${s.newest ?? "unknown"}`);
    lines.push("", s.attribution);
    if (s.notice) lines.push("", "```text", s.notice, "```");
  }
  return `${lines.join("\n")}\n`;
}

/** The newer of two ISO dates as a full ISO time stamp (`current` empty: none yet). */
function later(current: string, candidate: string, where: string): string {
  const t = Date.parse(candidate);
  if (Number.isNaN(t)) throw new Error(`${where}: date ${JSON.stringify(candidate)} unreadable`);
  const iso = new Date(t).toISOString();
  return current === "" || iso > current ? iso : current;
}

function sortedNames(dir: string): string[] {
  return readdirSync(dir).sort();
}

/** The folder's git commit when it is a checkout, else undefined. */
function gitCommit(dir: string): string | undefined {
  if (!existsSync(path.join(dir, ".git"))) return undefined;
  return execFileSync("git", ["-C", dir, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
}

const USAGE =
  "usage: npm run advisories:refresh -- [--pypa <dir>] [--npm <dir>] [--pypa-commit <sha>] [--npm-commit <sha>] [--out <file>]";

function main(argv: string[]): number {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        pypa: { type: "string" },
        npm: { type: "string" },
        "pypa-commit": { type: "string" },
        "npm-commit": { type: "string" },
        out: { type: "string" },
      },
    }));
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (!values.pypa && !values.npm) {
    console.error(USAGE);
    return 2;
  }
  const readings: SourceReading[] = [];
  if (values.pypa)
    readings.push(readPypa(values.pypa, values["pypa-commit"] ?? gitCommit(values.pypa)));
  if (values.npm)
    readings.push(readNodeSecurityWg(values.npm, values["npm-commit"] ?? gitCommit(values.npm)));
  const snapshot = buildSnapshot(readings);
  const text = serializeSnapshot(snapshot);
  const out = values.out ?? SNAPSHOT_FILE;
  const bytes = out.endsWith(".gz") ? packSnapshot(text) : Buffer.from(text, "utf8");
  writeFileSync(out, bytes);
  writeFileSync(path.join(path.dirname(out), "NOTICE.md"), renderNotice(snapshot));
  for (const r of readings)
    console.log(
      `${r.source.id}: ${r.source.records} records, ${r.advisories.length} kept, ${r.skipped} skipped (withdrawn or no npm/PyPI package), newest ${r.source.newest ?? "?"}${r.source.commit ? `, commit ${r.source.commit}` : ""}`,
    );
  console.log(
    `wrote ${path.relative(process.cwd(), out)}: ${snapshot.advisories.length} advisories, as of ${snapshot.asOf}, ${text.length} bytes of JSON, ${bytes.length} bytes on disk`,
  );
  return 0;
}

if (process.argv[1] === import.meta.filename) process.exit(main(process.argv.slice(2)));
