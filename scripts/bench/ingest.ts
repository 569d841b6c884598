/**
 * `npm run bench -- ingest`: accepted submissions per second through a local `wrangler dev` of
 * the platform Worker against a trivial route of the same Worker (`GET /healthz`), their ratio
 * and the Worker's CPU per request. Options, settings and figures: docs/benchmarks.md, "ingest".
 * Invariants: bounded (each phase stops at its count or PHASE_SECONDS); both routes run at the
 * same concurrency, warmed up, and each measured phase starts once the Worker is idle.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { BoutsApiError, createBoutsClient, submit, unwrap, type BoutsClient } from "@bouts/client";
import {
  applyMigrations,
  bootstrapOperator,
  executeSql,
  sqlText,
  startWorker,
  stopChild,
  waitForHealth,
  writeConfigWithoutConsumers,
  ROOT,
} from "../lib/local-platform.ts";

/** The bench's consumer-less copy of wrangler.toml (repository root, git-ignored). */
const BENCH_CONFIG = ".bench-wrangler.toml";

const PORT = Number(process.env.BENCH_PORT ?? 8797);
const API = `http://127.0.0.1:${PORT}`;
/** Submissions per agent key: under the per-key submit limit (30 a minute). */
const PER_AGENT = 25;
const PHASE_SECONDS = 30;
const WARM_UP_SUBMISSIONS = 10;
const WARM_UP_REQUESTS = 100;
const IDLE_CPU_SHARE = 0.1;
const IDLE_TIMEOUT_MS = 30_000;
/** statfs(2)'s f_type of tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;

/**
 * Where the run's throw-away state goes: RAM-backed (/dev/shm) unless `onDisk`, because locally
 * D1, R2, the queue and the rate limiter sync every commit to disk (docs/benchmarks.md, "ingest").
 */
function stateRoot(onDisk: boolean): { root: string; filesystem: string } {
  const root = !onDisk && existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
  let filesystem = "unknown";
  try {
    filesystem = statfsSync(root).type === TMPFS_MAGIC ? "tmpfs" : "disk";
  } catch {
    // statfs is not available everywhere; say so rather than guess.
  }
  return { root, filesystem };
}

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

/**
 * CPU time (ms) used so far by the live processes of process group `pgid` (the Worker: workerd
 * and wrangler), from /proc; null where /proc is not available. The machine's load disturbs this
 * figure far less than a rate.
 */
function groupCpuMs(pgid: number): number | null {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return null;
  }
  let ticks = 0;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the parenthesised command: state ppid pgrp … utime(14) stime(15).
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(rest[2]) !== pgid) continue;
    ticks += Number(rest[11]) + Number(rest[12]);
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

/**
 * Waits until the process group uses less than IDLE_CPU_SHARE of a core over a second, so that a
 * measured phase does not pay for work left over from the one before.
 */
async function waitForIdle(pgid: number): Promise<void> {
  const deadline = Date.now() + IDLE_TIMEOUT_MS;
  let last = groupCpuMs(pgid);
  while (last !== null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = groupCpuMs(pgid);
    if (now === null || now - last < 1000 * IDLE_CPU_SHARE) return;
    last = now;
  }
}

/**
 * Runs `total` tasks with `concurrency` workers, stopping early at `deadline`. Every phase of both
 * routes runs through here over kept-alive connections (Node's fetch pools them).
 */
async function drive(
  total: number,
  concurrency: number,
  deadline: number,
  task: (i: number) => Promise<boolean>,
  pgid: number,
) {
  let next = 0;
  let ok = 0;
  let failed = 0;
  const cpu0 = groupCpuMs(pgid);
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
  const seconds = (performance.now() - started) / 1000;
  const cpu1 = groupCpuMs(pgid);
  const cpuMsPerRequest =
    cpu0 === null || cpu1 === null ? null : (cpu1 - cpu0) / Math.max(1, ok + failed);
  return { ok, failed, seconds, cpuMsPerRequest };
}

export default async function bench(args: string[]): Promise<void> {
  const submissions = option(args, "submissions", 300);
  const concurrency = option(args, "concurrency", 8);
  const trivial = Math.max(submissions * 4, 1000);
  const withConsumers = args.includes("--with-consumers");
  const agentsNeeded = Math.ceil((submissions + WARM_UP_SUBMISSIONS) / PER_AGENT);
  const state = stateRoot(args.includes("--state-on-disk"));
  const persistTo = mkdtempSync(path.join(state.root, "bouts-bench-"));
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
    // Without the queue consumers by default: the aim is the edge path (check, store, enqueue).
    // With them, the score role fails every bench message (it has no bundle) in the same isolate.
    worker.child = startWorker({
      port: PORT,
      persistTo,
      // Nothing is scored while the bench runs (no consumers), so every accepted submission
      // stays in flight: the per-agent in-flight cap (4) would refuse the rest of each key's
      // share. The bench measures the ingest path, so the cap is raised to that share.
      vars: { RUNNER_URL: "", MAX_SUBMISSIONS_IN_FLIGHT: String(PER_AGENT) },
      quiet: true,
      ...(withConsumers ? {} : { config: writeConfigWithoutConsumers(BENCH_CONFIG) }),
    });
    // wrangler watches the sources, so an edit elsewhere in the tree reloads the Worker.
    let reloads = 0;
    const countReloads = (chunk: Buffer) => {
      reloads += chunk.toString().split("Reloading local server").length - 1;
    };
    worker.child.stdout?.on("data", countReloads);
    worker.child.stderr?.on("data", countReloads);
    await waitForHealth(`${API}/healthz`, 120_000, worker.child);
    const pgid = worker.child.pid ?? 0;

    // The typed client (packages/client): the API calls as the OpenAPI document types them.
    const operatorClient = createBoutsClient({ baseUrl: API, key: operator.key });
    const agents: BoutsClient[] = [];
    for (let i = 0; i < agentsNeeded; i++) {
      const created = await unwrap(
        operatorClient.POST("/v1/agents", { body: { name: `bench-${i}` } }),
      );
      const agent = createBoutsClient({ baseUrl: API, key: created.key.key });
      await unwrap(
        agent.POST("/v1/challenges/{id}/entries", { params: { path: { id: challengeId } } }),
      );
      agents.push(agent);
    }
    // Warm-up submissions come first (last agents, distinct keys and bytes), uncounted.
    const total = submissions + WARM_UP_SUBMISSIONS;
    const archives = Array.from({ length: total }, (_, i) =>
      tarGz({ "src/index.js": `export const n = ${i};\n`, "NOTES.md": `run ${i}\n` }),
    );
    const submitOne = async (i: number) => {
      const agent = agents[i % agents.length];
      if (!agent) return false;
      try {
        await submit(agent, challengeId, {
          archive: archives[i] ?? new Uint8Array(),
          idempotencyKey: `bench-${i}`,
        });
        return true;
      } catch (e) {
        if (e instanceof BoutsApiError) return false;
        throw e;
      }
    };
    // Not an API route (no document entry): a plain fetch.
    const getTrivial = async () => {
      const res = await fetch(`${API}/healthz`);
      await res.arrayBuffer();
      return res.ok;
    };
    const warmUp = await drive(WARM_UP_SUBMISSIONS, concurrency, Infinity, submitOne, pgid);
    if (warmUp.failed > 0) throw new Error(`warm-up: ${warmUp.failed} submissions refused`);
    await drive(WARM_UP_REQUESTS, concurrency, Infinity, getTrivial, pgid);

    const trivialPhase = async () => {
      await waitForIdle(pgid);
      return drive(trivial / 2, concurrency, Date.now() + PHASE_SECONDS * 500, getTrivial, pgid);
    };
    // The trivial route is measured before and after the submissions, so that a change in
    // the machine's load during the run weighs on both figures alike.
    const before = await trivialPhase();
    await waitForIdle(pgid);
    const ingest = await drive(
      submissions,
      concurrency,
      Date.now() + PHASE_SECONDS * 1000,
      (i) => submitOne(i + WARM_UP_SUBMISSIONS),
      pgid,
    );
    const after = await trivialPhase();
    const ingestRate = ingest.ok / ingest.seconds;
    const beforeRate = before.ok / before.seconds;
    const afterRate = after.ok / after.seconds;
    const trivialRate = (beforeRate + afterRate) / 2;
    console.log(`queue_consumers_in_worker: ${withConsumers ? "on" : "off"}`);
    console.log(`bench_state_filesystem: ${state.filesystem}`);
    console.log(`ingest_concurrency: ${concurrency}`);
    console.log(`ingest_submissions_accepted: ${ingest.ok}`);
    console.log(`ingest_submissions_refused: ${ingest.failed}`);
    console.log(`ingest_submissions_per_second: ${ingestRate.toFixed(1)}`);
    console.log(`trivial_route_requests_per_second: ${trivialRate.toFixed(1)}`);
    console.log(`trivial_route_requests_per_second_before: ${beforeRate.toFixed(1)}`);
    console.log(`trivial_route_requests_per_second_after: ${afterRate.toFixed(1)}`);
    console.log(`ingest_to_trivial_ratio: ${(ingestRate / trivialRate).toFixed(3)}`);
    const trivialCpu =
      before.cpuMsPerRequest === null || after.cpuMsPerRequest === null
        ? null
        : (before.cpuMsPerRequest + after.cpuMsPerRequest) / 2;
    if (trivialCpu !== null && ingest.cpuMsPerRequest !== null) {
      console.log(`worker_cpu_ms_per_submission: ${ingest.cpuMsPerRequest.toFixed(2)}`);
      console.log(`worker_cpu_ms_per_trivial_request: ${trivialCpu.toFixed(2)}`);
      console.log(
        `worker_cpu_trivial_to_submission_ratio: ${(trivialCpu / ingest.cpuMsPerRequest).toFixed(3)}`,
      );
    }
    console.log(`worker_reloads_during_run: ${reloads}`);
  } finally {
    if (worker.child) stopChild(worker.child);
    rmSync(persistTo, { recursive: true, force: true });
    rmSync(path.join(ROOT, BENCH_CONFIG), { force: true });
  }
}
