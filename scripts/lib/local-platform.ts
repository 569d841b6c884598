/**
 * @module scripts/lib/local-platform
 * Bringing the platform Worker up locally with no account and no network, shared by
 * `npm start` and `npm run bench -- ingest`: D1 migrations, `wrangler dev` on loopback, and
 * the local-only operator bootstrap. Invariants: every wrangler call runs with metrics,
 * cf.json fetching and prompts off; every child is started in its own process group so it
 * can be stopped with everything it spawned; the operator key is written with
 * `wrangler d1 execute --local`, a path that exists only on this machine (there is no HTTP
 * route that creates operators).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { mintApiKey } from "@bouts/db/keys";

/** Repository root. */
export const ROOT = path.join(import.meta.dirname, "../..");
/** The D1 database name in wrangler.toml. */
export const DB_NAME = "bouts";

/**
 * wrangler's own entry, run with this process's Node: `npx wrangler` first starts npm to find
 * the same file (0.3 CPU-s a call; npm start, the e2e platforms and their tests make dozens).
 */
const WRANGLER = path.join(
  path.dirname(createRequire(import.meta.url).resolve("wrangler/package.json")),
  "bin",
  "wrangler.js",
);

/** The command and arguments that run `wrangler <args>`. */
function wranglerCommand(args: string[]): [string, string[]] {
  return [process.execPath, [WRANGLER, ...args]];
}

/** Environment for wrangler: offline, quiet, non-interactive. */
export function wranglerEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    CI: "true",
    NO_COLOR: "1",
  };
}

/** Runs a wrangler command to completion; throws with its output when it fails. */
export function runWrangler(args: string[]): string {
  const r = spawnSync(...wranglerCommand(args), {
    cwd: ROOT,
    env: wranglerEnv(),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) {
    throw new Error(`wrangler ${args.slice(0, 3).join(" ")} failed:\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

/** Runs a wrangler command in the background; rejects with its output when it fails. */
export function runWranglerAsync(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(...wranglerCommand(args), { cwd: ROOT, env: wranglerEnv() });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`wrangler ${args.slice(0, 3).join(" ")} failed:\n${out}`)),
    );
  });
}

/** Applies every D1 migration to the local database under `persistTo`. */
export function applyMigrations(persistTo: string): void {
  runWrangler(["d1", "migrations", "apply", DB_NAME, "--local", "--persist-to", persistTo]);
}

/** applyMigrations without blocking, so other children can start meanwhile. */
export async function applyMigrationsAsync(persistTo: string): Promise<void> {
  await runWranglerAsync([
    "d1",
    "migrations",
    "apply",
    DB_NAME,
    "--local",
    "--persist-to",
    persistTo,
  ]);
}

/** Executes SQL against the local database under `persistTo`. */
export function executeSql(persistTo: string, sql: string): void {
  runWrangler(["d1", "execute", DB_NAME, "--local", "--persist-to", persistTo, "--command", sql]);
}

/** executeSql without blocking. */
export async function executeSqlAsync(persistTo: string, sql: string): Promise<void> {
  await runWranglerAsync([
    "d1",
    "execute",
    DB_NAME,
    "--local",
    "--persist-to",
    persistTo,
    "--command",
    sql,
  ]);
}

/** Quotes a value as a SQL string literal. */
export function sqlText(v: string): string {
  return `'${v.replaceAll("'", "''")}'`;
}

/** Runs SQL in the local database and answers the rows of its last statement. */
export function queryRowsAsync(persistTo: string, sql: string): Promise<Record<string, unknown>[]> {
  const args = ["d1", "execute", DB_NAME, "--local", "--persist-to", persistTo, "--json"];
  return new Promise((resolve, reject) => {
    const child = spawn(...wranglerCommand([...args, "--command", sql]), {
      cwd: ROOT,
      env: wranglerEnv(),
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`wrangler d1 execute failed:\n${out}\n${err}`));
      try {
        const results = JSON.parse(out) as { results?: Record<string, unknown>[] }[];
        resolve(results.at(-1)?.results ?? []);
      } catch {
        reject(new Error(`wrangler d1 execute --json did not answer JSON:\n${out}`));
      }
    });
  });
}

/**
 * Gives the local operator called `name` a new key, creating the operator only when the local
 * database has none of that name: a start that lost its saved key (an interrupted first start)
 * gets the same operator back, and with it the drafts that operator created. Returns the key
 * (shown once).
 */
export async function bootstrapOperator(
  persistTo: string,
  name: string,
): Promise<{ id: string; key: string }> {
  const fresh = crypto.randomUUID();
  const key = await mintApiKey();
  const now = Date.now();
  const owner = `(SELECT id FROM operators WHERE name = ${sqlText(name)} ORDER BY created_at, id LIMIT 1)`;
  const rows = await queryRowsAsync(
    persistTo,
    `INSERT INTO operators (id, name, created_at)
       SELECT ${sqlText(fresh)}, ${sqlText(name)}, ${now}
       WHERE NOT EXISTS (SELECT 1 FROM operators WHERE name = ${sqlText(name)});
     INSERT INTO api_keys (id, role, agent_id, operator_id, secret_hash, label, created_at, revoked_at)
       VALUES (${sqlText(key.id)}, 'operator', NULL, ${owner}, ${sqlText(key.secretHash)},
               'local bootstrap', ${now}, NULL);
     SELECT operator_id AS id FROM api_keys WHERE id = ${sqlText(key.id)};`,
  );
  const id = rows[0]?.id;
  if (typeof id !== "string") throw new Error(`bootstrapping ${name}: no operator id came back`);
  return { id, key: key.token };
}

/**
 * Starts a long-running child in its own process group, streaming its output with a prefix;
 * `onLine` sees every non-blank output line (quiet or not).
 */
export function startChild(
  label: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  quiet = false,
  onLine?: (line: string) => void,
): ChildProcess {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: "pipe" });
  const forward = (stream: NodeJS.ReadableStream | null, out: NodeJS.WriteStream) => {
    let pending = "";
    stream?.on("data", (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.trim()) continue;
        onLine?.(line);
        if (!quiet) out.write(`[${label}] ${line}\n`);
      }
    });
  };
  forward(child.stdout, process.stdout);
  forward(child.stderr, process.stderr);
  return child;
}

/** Stops a child and everything it spawned (its process group). */
export function stopChild(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    // Already gone.
  }
}

/** Starts `wrangler dev` for the root wrangler.toml (or `config`) on loopback. */
export function startWorker(opts: {
  port: number;
  persistTo: string;
  vars: Record<string, string>;
  quiet?: boolean;
  /** Another wrangler config than the root wrangler.toml (it must sit in the repository root). */
  config?: string;
  /** A dotenv file of secrets (`--env-file`): kept off the command line, which `ps` shows. */
  envFile?: string;
}): ChildProcess {
  const args = [
    "dev",
    ...(opts.config ? ["--config", opts.config] : []),
    "--ip",
    "127.0.0.1",
    "--port",
    String(opts.port),
    "--inspector-port",
    String(opts.port + 10_000),
    "--persist-to",
    opts.persistTo,
    "--local",
    "--show-interactive-dev-session=false",
    ...(opts.envFile ? ["--env-file", opts.envFile] : []),
    ...Object.entries(opts.vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  ];
  return startChild("worker", ...wranglerCommand(args), wranglerEnv(), opts.quiet);
}

/** Polls `url` until it answers 200, or throws after `timeoutMs`. */
export async function waitForHealth(
  url: string,
  timeoutMs: number,
  child?: ChildProcess,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) {
      throw new Error(`${url}: the process exited with code ${child.exitCode}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // Not up yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not become healthy within ${timeoutMs} ms`);
}

/** Reproducible .tar.gz archives of a folder (@bouts/fixtures), as npm start seeds them. */
export { packDirectory } from "@bouts/fixtures";

/**
 * Writes a copy of the root wrangler.toml without any `[[queues.consumers]]` block, next to it
 * (paths in it stay valid), and returns its path. Producers are kept, so messages are still
 * sent and stay queued; nothing consumes them in this process.
 */
export function writeConfigWithoutConsumers(name: string): string {
  const lines = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8").split("\n");
  const out: string[] = [];
  let skipping = false;
  for (const line of lines) {
    if (/^\s*\[/.test(line)) skipping = /^\s*\[\[(env\.[\w-]+\.)?queues\.consumers\]\]/.test(line);
    if (!skipping) out.push(line);
  }
  const file = path.join(ROOT, name);
  writeFileSync(file, out.join("\n"));
  return file;
}
