/**
 * `npm run bench -- ingest`: accepted submissions per second through the locally running
 * platform Worker (`wrangler dev` on loopback, a throw-away state directory), and in the same
 * run the request rate of a trivial route (`GET /healthz`) of the same runtime, with the
 * ratio. Bounded: at most --submissions submissions (300) and four times as many trivial
 * requests (half before, half after the submissions), each phase at most PHASE_SECONDS.
 * Every submission is a distinct small .tar.gz (two files, ~200 bytes) sent as multipart with
 * an Idempotency-Key, as an agent would; each agent submits at most PER_AGENT times, under
 * the per-key submit limit (30 a minute). Options: --submissions N --concurrency N (8).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import {
  applyMigrations,
  bootstrapOperator,
  executeSql,
  sqlText,
  startWorker,
  stopChild,
  waitForHealth,
} from "../lib/local-platform.ts";

const PORT = Number(process.env.BENCH_PORT ?? 8797);
const API = `http://127.0.0.1:${PORT}`;
const PER_AGENT = 25;
const PHASE_SECONDS = 30;

function option(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a positive integer`);
  return v;
}

/** A tiny ustar archive of the given files, gzip'd. */
function tarGz(files: Record<string, string>): Uint8Array {
  const blocks: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content);
    const h = Buffer.alloc(512);
    h.write(name, 0);
    h.write("0000644\0", 100);
    h.write("0000000\0", 108);
    h.write("0000000\0", 116);
    h.write(`${data.length.toString(8).padStart(11, "0")}\0`, 124);
    h.write("00000000000\0", 136);
    h.write("        ", 148);
    h.write("0", 156);
    h.write("ustar\0", 257);
    h.write("00", 263);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
    blocks.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return new Uint8Array(gzipSync(Buffer.concat(blocks)));
}

/** Runs `total` tasks with `concurrency` workers, stopping early at `deadline`. */
async function drive(
  total: number,
  concurrency: number,
  deadline: number,
  task: (i: number) => Promise<boolean>,
) {
  const cpu0 = process.cpuUsage();
  let next = 0;
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total && Date.now() < deadline) {
        const i = next++;
        if (await task(i)) ok++;
        else failed++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `DEBUG client cpu ms per request: ${((cpu.user + cpu.system) / 1000 / Math.max(1, ok + failed)).toFixed(2)}`,
  );
  return { ok, failed, seconds: (performance.now() - started) / 1000 };
}

export default async function bench(args: string[]): Promise<void> {
  const submissions = option(args, "submissions", 300);
  const concurrency = option(args, "concurrency", 8);
  const trivial = Math.max(submissions * 4, 1000);
  const agentsNeeded = Math.ceil(submissions / PER_AGENT);
  const persistTo = mkdtempSync(path.join(tmpdir(), "bouts-bench-"));
  const worker = { child: null as ReturnType<typeof startWorker> | null };
  try {
    applyMigrations(persistTo);
    const operator = await bootstrapOperator(persistTo, "bench operator");
    // A published challenge written straight into the bench's own throw-away D1: the bench
    // measures ingest, not the runner's QA that gates publishing through the API.
    const challengeId = crypto.randomUUID();
    const now = Date.now();
    executeSql(
      persistTo,
      `INSERT INTO challenges (id, slug, title, description, status, profile, family,
         ranking_mode, max_iterations, limits, created_by, created_at, updated_at, published_at)
       VALUES (${sqlText(challengeId)}, 'bench', 'Bench', '', 'published', 'engineering',
         'default', 'latest', 1000000, '{"cooldownSeconds":0}', ${sqlText(operator.id)},
         ${now}, ${now}, ${now});`,
    );
    worker.child = startWorker({ port: PORT, persistTo, vars: { RUNNER_URL: "" }, quiet: true });
    await waitForHealth(`${API}/healthz`, 120_000, worker.child);

    const agents: string[] = [];
    for (let i = 0; i < agentsNeeded; i++) {
      const res = await fetch(`${API}/v1/agents`, {
        method: "POST",
        headers: { Authorization: `Bearer ${operator.key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ name: `bench-${i}` }),
      });
      const body = (await res.json()) as { key: { key: string } };
      const key = body.key.key;
      const entered = await fetch(`${API}/v1/challenges/${challengeId}/entries`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}` },
      });
      if (entered.status !== 201) throw new Error(`entering: ${entered.status}`);
      agents.push(key);
    }
    const archives = Array.from({ length: submissions }, (_, i) =>
      tarGz({ "src/index.js": `export const n = ${i};\n`, "NOTES.md": `run ${i}\n` }),
    );
    // Warm the isolate on both paths before measuring.
    await fetch(`${API}/healthz`);

    const submitOne = async (i: number) => {
      const form = new FormData();
      form.set("archive", new Blob([archives[i] ?? new Uint8Array()]), "solution.tar.gz");
      const res = await fetch(`${API}/v1/challenges/${challengeId}/submissions`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${agents[i % agents.length]}`,
          "Idempotency-Key": `bench-${i}`,
        },
        body: form,
      });
      await res.arrayBuffer();
      return res.status === 202;
    };
    const trivialPhase = async () => {
      const r = await drive(
        trivial / 2,
        concurrency,
        Date.now() + PHASE_SECONDS * 500,
        async () => {
          const res = await fetch(`${API}/healthz`);
          await res.arrayBuffer();
          return res.ok;
        },
      );
      return r.ok / r.seconds;
    };
    // The trivial route is measured before and after the submissions, so that a change in
    // the machine's load during the run weighs on both figures alike.
    const before = await trivialPhase();
    const ingest = await drive(
      submissions,
      concurrency,
      Date.now() + PHASE_SECONDS * 1000,
      submitOne,
    );
    const after = await trivialPhase();
    const ingestRate = ingest.ok / ingest.seconds;
    const trivialRate = (before + after) / 2;
    console.log(`ingest_concurrency: ${concurrency}`);
    console.log(`ingest_submissions_accepted: ${ingest.ok}`);
    console.log(`ingest_submissions_refused: ${ingest.failed}`);
    console.log(`ingest_submissions_per_second: ${ingestRate.toFixed(1)}`);
    console.log(`trivial_route_requests_per_second: ${trivialRate.toFixed(1)}`);
    console.log(`trivial_route_requests_per_second_before: ${before.toFixed(1)}`);
    console.log(`trivial_route_requests_per_second_after: ${after.toFixed(1)}`);
    console.log(`ingest_to_trivial_ratio: ${(ingestRate / trivialRate).toFixed(3)}`);
  } finally {
    if (worker.child) stopChild(worker.child);
    rmSync(persistTo, { recursive: true, force: true });
  }
}
