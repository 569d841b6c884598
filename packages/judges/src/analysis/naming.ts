/**
 * @module judges/analysis/naming
 * Names: every variable, parameter and function a file declares, and which of them are
 * cryptic (too short to say anything, or placeholders such as `tmp`, `foo`, `data2`). A
 * cryptic name is reported once, where it is first declared. Pure.
 */
import { lineAt } from "../source-text.ts";
import type { Finding } from "./findings.ts";
import type { SourceUnit } from "./source-unit.ts";

/** A declared name and where. */
export interface NamedAt {
  name: string;
  file: string;
  line: number;
}

/** Short names every reader knows (loop indices, error, coordinates, common abbreviations). */
const SHORT_OK = new Set(
  "i j k n x y z e id db fs ok io os re el fn cb _ to at of in is on ms t s v m a b c f q w ex op".split(
    " ",
  ),
);

const DECLARED_PY =
  /^[ \t]*([A-Za-z_]\w*)\s*(?::[^=\n]+)?=(?!=)|\bfor\s+([A-Za-z_]\w*)\s+in\b|\bas\s+([A-Za-z_]\w*)/gm;
const DECLARED_JS =
  /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)|\bfor\s*\(\s*(?:const|let|var)\s+([A-Za-z_$][\w$]*)|\bcatch\s*\(\s*([A-Za-z_$][\w$]*)/g;

/** The variables a file declares (assignments, loop variables, `as` and `catch` bindings). */
export function collectDeclaredNames({ code, python, path }: SourceUnit): NamedAt[] {
  const names: NamedAt[] = [];
  for (const m of code.matchAll(python ? DECLARED_PY : DECLARED_JS)) {
    const name = m[1] ?? m[2] ?? m[3];
    if (name) names.push({ name, file: path, line: lineAt(code, m.index) });
  }
  return names;
}

/** The cryptic names among `names`, and one finding per distinct cryptic name. */
export function findCrypticNames(names: readonly NamedAt[]): {
  cryptic: NamedAt[];
  findings: Finding[];
} {
  const cryptic = names.filter(
    (n) =>
      (n.name.length <= 2 && !SHORT_OK.has(n.name)) ||
      /^(?:tmp|temp|foo|bar|baz|stuff|thing|data\d+|var\d+|val\d+|[a-z]\d+)$/i.test(n.name),
  );
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const n of cryptic)
    if (!seen.has(n.name)) {
      seen.add(n.name);
      findings.push({ rule: "cryptic-name", file: n.file, line: n.line, detail: `'${n.name}'` });
    }
  return { cryptic, findings };
}
