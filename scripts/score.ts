/**
 * `npm run score -- <input.json> [--json]` and `npm run score -- --example <name> [--json]`:
 * computes a breakdown with the engine and prints it readably (or as JSON). Exit codes:
 * 0 scored, 1 the input cannot be scored (the error names the field), 2 usage.
 */
import { readFileSync } from "node:fs";
import { ScoreInputSchema } from "@bouts/contracts";
import {
  computeScore,
  SEED_AGENT_EXAMPLE,
  SEED_ENGINEERING_EXAMPLE,
  type Breakdown,
  type ScoreInput,
} from "@bouts/scoring";
import { z } from "zod";

const EXAMPLES: Record<string, ScoreInput> = {
  "seed-engineering": SEED_ENGINEERING_EXAMPLE,
  "seed-agent": SEED_AGENT_EXAMPLE,
};
const USAGE = `usage: npm run score -- <input.json> [--json]
       npm run score -- --example <${Object.keys(EXAMPLES).join("|")}> [--json]`;

function loadInput(
  args: string[],
): { ok: true; input: unknown } | { ok: false; message: string; code: number } {
  const i = args.indexOf("--example");
  if (i >= 0) {
    const name = args[i + 1] ?? "";
    const example = EXAMPLES[name];
    return example
      ? { ok: true, input: example }
      : { ok: false, message: `unknown example ${JSON.stringify(name)}\n${USAGE}`, code: 2 };
  }
  const file = args.find((a) => !a.startsWith("--"));
  if (!file) return { ok: false, message: USAGE, code: 2 };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return { ok: false, message: `cannot read ${file}: ${(e as Error).message}`, code: 2 };
  }
  try {
    return { ok: true, input: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, message: `${file} is not valid JSON: ${(e as Error).message}`, code: 1 };
  }
}

function render(b: Breakdown, indent = ""): string[] {
  const out: string[] = [];
  const title =
    b.profile === "agent"
      ? `agent-run profile v${b.profileVersion}, family ${b.family}`
      : `engineering profile v${b.profileVersion}`;
  out.push(`${indent}${title}`, "");
  for (const line of b.math) out.push(`${indent}  ${line}`);
  for (const c of b.components)
    if (c.notes.length) out.push(`${indent}  note (${c.label}): ${c.notes.join("; ")}`);
  for (const a of b.adjustments)
    for (const e of a.evidence)
      out.push(
        `${indent}  evidence (${a.label}): ${e.item}${e.points === null ? "" : ` ${e.points >= 0 ? "+" : ""}${e.points}`} — ${e.citation}`,
      );
  for (const f of b.flags) out.push(`${indent}  flag: ${f.code}: ${f.message}`);
  out.push(`${indent}  judged by (${b.judging.panel}): ${b.judging.summary}`);
  out.push(
    "",
    `${indent}final score: ${b.final.unrounded.text} → ${b.final.rounded} (${b.band.label}: ${b.band.meaning})`,
  );
  if (b.objective)
    out.push(
      "",
      `${indent}Objective, from the engineering profile:`,
      ...render(b.objective, `${indent}  `),
    );
  return out;
}

const args = process.argv.slice(2);
const loaded = loadInput(args);
if (!loaded.ok) {
  console.error(loaded.message);
  process.exit(loaded.code);
}
const parsed = ScoreInputSchema.safeParse(loaded.input);
if (!parsed.success) {
  console.error(
    `the input does not match the score input schema (docs/scoring.md):\n${z.prettifyError(parsed.error)}`,
  );
  process.exit(1);
}
const result = computeScore(parsed.data);
if (!result.ok) {
  const e = result.error;
  console.error(
    e.reason === "weight-rule"
      ? `weight rule ${e.rule}: ${e.detail}`
      : `${e.field}: ${e.detail} (${e.reason})`,
  );
  process.exit(1);
}
console.log(
  args.includes("--json") ? JSON.stringify(result.value, null, 2) : render(result.value).join("\n"),
);
