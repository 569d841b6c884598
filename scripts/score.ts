/**
 * `npm run score -- <input.json> [--json] [--seed <seed>]` and
 * `npm run score -- --example <name> [--json] [--seed <seed>]`: computes a breakdown with the
 * engine, with its 95 % interval drawn from `--seed` (default "bouts"; the platform's seed is
 * the breakdown's `interval.seed`, so passing it reproduces a published interval), and prints
 * it readably (or as JSON). Exit codes: 0 scored, 1 the input cannot be scored (the error
 * names the field), 2 usage.
 */
import { readFileSync } from "node:fs";
import { ScoreInputSchema } from "@bouts/contracts";
import {
  computeScore,
  CROSS_CHECKED_AGENT_EXAMPLE,
  scoringProfileOf,
  SEED_AGENT_EXAMPLE,
  SEED_ENGINEERING_EXAMPLE,
  type Breakdown,
  type ScoreInput,
} from "@bouts/scoring";
import { z } from "zod";

const EXAMPLES: Record<string, ScoreInput> = {
  "seed-engineering": SEED_ENGINEERING_EXAMPLE,
  "seed-agent": SEED_AGENT_EXAMPLE,
  "cross-checked-agent": CROSS_CHECKED_AGENT_EXAMPLE,
};
const USAGE = `usage: npm run score -- <input.json> [--json] [--seed <seed>]
       npm run score -- --example <${Object.keys(EXAMPLES).join("|")}> [--json] [--seed <seed>]`;
const DEFAULT_SEED = "bouts";
/** Flags followed by a value. */
const VALUED = new Set(["--example", "--seed"]);

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
  const file = args.find((a, j) => !a.startsWith("--") && !VALUED.has(args[j - 1] ?? ""));
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
  // The profile's name is its registry entry's; a profile weighed by family names the family.
  const family = b.family === null ? "" : `, family ${b.family}`;
  const title = `${scoringProfileOf(b.profile).labels.name} profile v${b.profileVersion}${family}`;
  out.push(`${indent}${title}`, "");
  for (const line of b.math) out.push(`${indent}  ${line}`);
  for (const c of b.components)
    if (c.notes.length) out.push(`${indent}  note (${c.label}): ${c.notes.join("; ")}`);
  for (const c of b.components)
    if (c.provenance)
      out.push(
        `${indent}  rests on (${c.label}): ${c.provenance.kind}${c.provenance.cap ? `, capped at ${c.provenance.cap.max} (uncapped ${c.provenance.cap.uncapped.text})` : ""} — ${c.provenance.basis}`,
      );
  for (const a of b.adjustments)
    if (a.provenance)
      out.push(`${indent}  rests on (${a.label}): ${a.provenance.kind} — ${a.provenance.basis}`);
  for (const a of b.adjustments)
    for (const e of a.evidence)
      out.push(
        `${indent}  evidence (${a.label}): ${e.item}${e.points === null ? "" : ` ${e.points >= 0 ? "+" : ""}${e.points}`}${e.provenance ? ` [${e.provenance}]` : ""} — ${e.citation}`,
      );
  for (const f of b.flags) out.push(`${indent}  flag: ${f.code}: ${f.message}`);
  out.push(`${indent}  judged by (${b.judging.panel}): ${b.judging.summary}`);
  out.push(
    "",
    `${indent}final score: ${b.final.unrounded.text} → ${b.final.rounded} (${b.band.label}: ${b.band.meaning})`,
  );
  if (b.interval) {
    const iv = b.interval;
    out.push(
      `${indent}${iv.level}% interval: ${iv.low.text} – ${iv.high.text} (${iv.method}, ${iv.replicates} replicates, ${iv.prng} seed ${JSON.stringify(iv.seed)}${iv.widenedToPoint ? ", widened to the point estimate" : ""})`,
      ...iv.resampled.map((r) => `${indent}  resampled: ${r}`),
      ...iv.fixed.map((f) => `${indent}  fixed: ${f}`),
    );
  }
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
const seedAt = args.indexOf("--seed");
const seed = seedAt >= 0 ? args[seedAt + 1] : DEFAULT_SEED;
if (seed === undefined || seed.length === 0 || seed.length > 200) {
  console.error(`--seed needs a value of 1 to 200 characters\n${USAGE}`);
  process.exit(2);
}
const result = computeScore(parsed.data, { interval: { seed } });
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
