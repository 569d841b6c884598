/**
 * `npm run bench -- scoring`: breakdowns computed per second on one core, for each worked
 * example, measured over a fixed time after a warm-up. Prints `name: value` lines.
 */
import {
  computeScore,
  SEED_AGENT_EXAMPLE,
  SEED_ENGINEERING_EXAMPLE,
  type ScoreInput,
} from "@bouts/scoring";

function measure(input: ScoreInput, ms: number): number {
  const warmUpEnd = performance.now() + 300;
  while (performance.now() < warmUpEnd) computeScore(input);
  let n = 0;
  const start = performance.now();
  while (performance.now() < start + ms) {
    for (let i = 0; i < 100; i++) if (!computeScore(input).ok) throw new Error("example failed");
    n += 100;
  }
  return n / ((performance.now() - start) / 1000);
}

export default function bench(args: string[]): Promise<void> {
  const ms = Number(args[0] ?? 2000);
  console.log(
    `scoring_engineering_breakdowns_per_sec: ${Math.round(measure(SEED_ENGINEERING_EXAMPLE, ms))}`,
  );
  console.log(`scoring_agent_breakdowns_per_sec: ${Math.round(measure(SEED_AGENT_EXAMPLE, ms))}`);
  return Promise.resolve();
}
