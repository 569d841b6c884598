/**
 * `npm run docs:config` — writes the table of the Worker's variables and secrets into
 * docs/deploy.md (between its markers) from each role's one configuration schema
 * (scripts/lib/role-configs.ts, docs/design.md §38), so the document cannot miss or misstate a
 * variable; the scripts project's test fails when they differ.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { listConfigVariables } from "../packages/edge/src/config.ts";
import { ROOT } from "./lib/local-platform.ts";
import { WORKER_CONFIGS } from "./lib/role-configs.ts";

/** The document whose table of variables is generated. */
export const DEPLOY_DOC = path.join(ROOT, "docs/deploy.md");
const START = "<!-- config-vars:start (npm run docs:config) -->";
const END = "<!-- config-vars:end -->";

/** One row per variable, with every role that reads it; a variable's first role describes it. */
export function renderConfigTable(): string {
  const byName = new Map<string, { roles: string[]; text: string; fallback: string }>();
  for (const { role, schema } of WORKER_CONFIGS)
    for (const v of listConfigVariables(schema)) {
      const row = byName.get(v.name);
      if (row) row.roles.push(role);
      else
        byName.set(v.name, {
          roles: [role],
          text: v.description.replace(/\|/g, "\\|"),
          fallback: v.required
            ? "required"
            : v.defaultValue === null
              ? "unset"
              : `\`${v.defaultValue}\``,
        });
    }
  const rows = [
    ["variable", "read by", "default", "meaning"],
    ...[...byName].map(([name, r]) => [`\`${name}\``, r.roles.join(", "), r.fallback, r.text]),
  ];
  const width = (s: string) => [...s].length;
  const widths = rows[0]!.map((_, i) => Math.max(3, ...rows.map((r) => width(r[i]!))));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c + " ".repeat(widths[i]! - width(c))).join(" | ")} |`;
  const [header, ...body] = rows;
  return [line(header!), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

/** `markdown` with the region between the markers replaced by the generated table. */
export function withConfigTable(markdown: string): string {
  const a = markdown.indexOf(START);
  const b = markdown.indexOf(END);
  if (a < 0 || b < a) throw new Error(`no ${START} … ${END} region`);
  return `${markdown.slice(0, a + START.length)}\n\n${renderConfigTable()}\n\n${markdown.slice(b)}`;
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(DEPLOY_DOC, withConfigTable(readFileSync(DEPLOY_DOC, "utf8")));
  console.log(`wrote the variables into ${path.relative(ROOT, DEPLOY_DOC)}`);
}
