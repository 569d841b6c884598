/**
 * `npm run bench -- scoring`: breakdowns computed per second on one core, for each worked
 * example, measured over a fixed time after a warm-up; then `intervals_per_s`, full breakdowns
 * with their 95 % interval (1,000 bootstrap replicates, a new seed each time) of the
 * engineering example, and the same for the agent example. Prints `name: value` lines.
 */
import {
  computeScore,
  SEED_AGENT_EXAMPLE,
  SEED_ENGINEERING_EXAMPLE,
  type ScoreInput,
} from "@bouts/scoring";

function measure(input: ScoreInput, ms: number, withInterval = false): number {
  let seq = 0;
  const once = () =>
    withInterval
      ? computeScore(input, { interval: { seed: `bench:${seq++}` } })
      : computeScore(input);
  const warmUpEnd = performance.now() + 300;
  while (performance.now() < warmUpEnd) once();
  let n = 0;
  const start = performance.now();
  while (performance.now() < start + ms) {
    for (let i = 0; i < 100; i++) if (!once().ok) throw new Error("example failed");
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
  console.log(`intervals_per_s: ${Math.round(measure(SEED_ENGINEERING_EXAMPLE, ms, true))}`);
  console.log(`intervals_agent_per_s: ${Math.round(measure(SEED_AGENT_EXAMPLE, ms, true))}`);
  return Promise.resolve();
}
