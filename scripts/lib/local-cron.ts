/**
 * @module scripts/lib/local-cron
 * The clock `wrangler dev` lacks: `npm start` fires the Worker's scheduled handler (deadlines,
 * the scoring reconciler, the webhook sweep) through wrangler dev's local trigger route
 * (`/cdn-cgi/handler/scheduled`), on the crons of wrangler.toml's `[triggers]`, or every
 * `intervalSeconds` when one is given (BOUTS_CRON_INTERVAL_SECONDS: a shorter local interval).
 * Invariants: crons are matched in UTC, as Cloudflare does; a tick never overlaps the previous
 * one (a slow sweep delays the next, it never runs twice at once); a failed tick is logged and
 * the clock keeps going; `stop()` ends it.
 */
import { readFileSync } from "node:fs";

/** The `crons` of the top-level `[triggers]` table of a wrangler.toml (not an env's). */
export function readCrons(tomlPath: string): string[] {
  const text = readFileSync(tomlPath, "utf8");
  const table = /^\[triggers\]\s*$([\s\S]*?)(?=^\[)/m.exec(`${text}\n[`);
  const list = table && /^\s*crons\s*=\s*\[([^\]]*)\]/m.exec(table[1]!);
  if (!list) return [];
  return [...list[1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

/** Values of one cron field (`*`, `*\/n`, `a`, `a-b`, `a-b/n`, lists), within [min, max]. */
function fieldValues(field: string, min: number, max: number): Set<number> {
  const out = new Set<number>();
  for (const part of field.split(",")) {
    const [range, stepText] = part.split("/");
    const step = stepText === undefined ? 1 : Number(stepText);
    let lo: number;
    let hi: number;
    if (range === "*") [lo, hi] = [min, max];
    else if (range!.includes("-")) [lo, hi] = range!.split("-").map(Number) as [number, number];
    else [lo, hi] = [Number(range), stepText === undefined ? Number(range) : max];
    if (![lo, hi, step].every(Number.isInteger) || step < 1 || lo < min || hi > max)
      throw new Error(`unsupported cron field "${field}"`);
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

/** Whether a five-field cron expression matches the UTC minute of `at`. */
export function cronMatches(cron: string, at: Date): boolean {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) throw new Error(`unsupported cron "${cron}" (five fields expected)`);
  const [minute, hour, day, month, weekday] = fields as [string, string, string, string, string];
  const dow = fieldValues(weekday, 0, 7);
  if (dow.has(7)) dow.add(0);
  const dayOk = fieldValues(day, 1, 31).has(at.getUTCDate());
  const dowOk = dow.has(at.getUTCDay());
  // As in cron: when both day fields are restricted, either one matching is enough.
  const days = day !== "*" && weekday !== "*" ? dayOk || dowOk : dayOk && dowOk;
  return (
    fieldValues(minute, 0, 59).has(at.getUTCMinutes()) &&
    fieldValues(hour, 0, 23).has(at.getUTCHours()) &&
    fieldValues(month, 1, 12).has(at.getUTCMonth() + 1) &&
    days
  );
}

export interface LocalCronOptions {
  /** The Worker's origin, e.g. http://127.0.0.1:8787. */
  api: string;
  crons: string[];
  /** Fire every cron this often instead of on its schedule (seconds). */
  intervalSeconds?: number;
  log: (line: string) => void;
}

/** Fires the scheduled handler once for `cron` at `at`; throws when it did not succeed. */
export async function fireScheduled(api: string, cron: string, at: Date): Promise<void> {
  const url = `${api}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(cron)}&time=${at.getTime()}`;
  const res = await fetch(url, { signal: AbortSignal.timeout(5 * 60_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text.slice(0, 200)}`);
}

/** Starts the clock; returns its stop function. */
export function startLocalCron(opts: LocalCronOptions): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const tick = async (at: Date, crons: string[]) => {
    for (const cron of crons) {
      try {
        await fireScheduled(opts.api, cron, at);
      } catch (e) {
        opts.log(`the scheduled handler (${cron}) failed: ${String(e)}`);
      }
    }
  };
  const schedule = () => {
    if (stopped) return;
    const now = Date.now();
    const wait = opts.intervalSeconds ? opts.intervalSeconds * 1000 : 60_000 - (now % 60_000) + 50; // just past the next minute boundary
    timer = setTimeout(() => {
      const at = new Date();
      const due = opts.intervalSeconds ? opts.crons : opts.crons.filter((c) => cronMatches(c, at));
      void tick(at, due).finally(schedule);
    }, wait);
  };
  schedule();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
