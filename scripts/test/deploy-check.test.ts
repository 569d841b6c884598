import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { collectUsedNames, main } from "../deploy-check.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TOML = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
const copies: string[] = [];

/** A copy of wrangler.toml beside it (its relative paths stay valid), edited by `edit`. */
function configCopy(edit: (toml: string) => string): string {
  const edited = edit(TOML);
  expect(edited).not.toBe(TOML);
  const file = path.join(ROOT, `.deploy-check-test-${process.pid}-${copies.length}.toml`);
  writeFileSync(file, edited);
  copies.push(file);
  return file;
}

/** `npm run deploy:check` as a process: the command line as an operator runs it. */
function check(...args: string[]) {
  const r = spawnSync(
    process.execPath,
    [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), "scripts/deploy-check.ts", ...args],
    { cwd: ROOT, encoding: "utf8", env: { ...process.env, CLOUDFLARE_API_TOKEN: "" } },
  );
  return { status: r.status, out: r.stdout + r.stderr };
}

/**
 * The same check in this process (its `main`, with what it prints and the exit code the command
 * line would give, a throw included): each process would load wrangler and TypeScript again,
 * about 3.5 CPU-seconds a check. `env` is set for the call only.
 */
function checkHere(env: Record<string, string>, ...args: string[]) {
  const lines: string[] = [];
  const take = (...parts: unknown[]) => void lines.push(parts.map(String).join(" "));
  const spies = [
    vi.spyOn(console, "log").mockImplementation(take),
    vi.spyOn(console, "warn").mockImplementation(take),
    vi.spyOn(console, "error").mockImplementation(take),
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      lines.push(String(chunk).replace(/\n$/, ""));
      return true;
    }),
  ];
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  let status: number;
  try {
    status = main(args);
  } catch (e) {
    take(`deploy:check: FAIL: ${e instanceof Error ? e.message : String(e)}`);
    status = 1;
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    for (const spy of spies) spy.mockRestore();
  }
  return { status, out: `${lines.join("\n")}\n` };
}

afterEach(() => {
  for (const f of copies.splice(0)) rmSync(f, { force: true });
});

describe("deploy:check", () => {
  // One production build (the slow part, seconds of CPU); the refusals check edited copies of
  // the config against it with --prebuilt, as the bundled code does not depend on bindings.
  let outdir = "";
  let built: ReturnType<typeof check>;
  beforeAll(() => {
    outdir = mkdtempSync(path.join(tmpdir(), "bouts-deploy-check-test-"));
    built = check("--outdir", outdir);
  }, 120_000);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));
  const checkBuilt = (...args: string[]) => checkHere({}, "--prebuilt", outdir, ...args);

  it("builds the production bundle offline and prints its gzipped size against the plan", () => {
    const r = built;
    expect(r.out).toMatch(/^bundle_gzip_bytes: \d+$/m);
    // Every uploaded module counts, the Text modules of [[rules]] too (Swagger UI's files,
    // design.md §37): the figure is wrangler's own gzipped upload size, within rounding.
    const bytes = Number(/^bundle_gzip_bytes: (\d+)$/m.exec(r.out)?.[1]);
    const kib = Number(/^wrangler: Total Upload: .* gzip: ([\d.]+) KiB$/m.exec(r.out)?.[1]);
    expect(Math.abs(bytes - kib * 1024)).toBeLessThan(kib * 1024 * 0.02);
    expect(r.out).toMatch(/^plan_limit_bytes: 10485760 \(Workers Paid/m);
    expect(r.out).toMatch(/warning: D1 DB: database_id is a placeholder/);
    expect(r.status).toBe(0);
  }, 60_000);

  it("fails naming the AI binding when a copy of the config drops it", () => {
    const file = configCopy((t) => t.replace(/\[env\.production\.ai\]\nbinding = "AI"\n/, ""));
    const r = checkBuilt("--config", file);
    expect(r.out).toMatch(/FAIL: binding AI is used by the code/);
    expect(r.status).toBe(1);
  }, 60_000);

  it("fails naming a top-level binding that production does not restate", () => {
    const file = configCopy((t) =>
      t.replace(
        /\[\[env\.production\.queues\.producers\]\]\nbinding = "WEBHOOKS_DLQ"\nqueue = "bouts-webhooks-dlq"\n/,
        "",
      ),
    );
    const r = checkBuilt("--config", file);
    expect(r.out).toMatch(/FAIL: binding WEBHOOKS_DLQ is used .* bindings are not inherited/);
    expect(r.status).toBe(1);
  }, 60_000);

  it("fails when production would grade with fewer than three model judges", () => {
    const file = configCopy((t) =>
      t.replace(
        /JUDGE_MODELS = "[^"]*"/,
        'JUDGE_MODELS = "@cf/meta/llama-3.3-70b-instruct-fp8-fast"',
      ),
    );
    const r = checkBuilt("--config", file);
    expect(r.out).toMatch(/FAIL: judges: 1 distinct model judges/);
    expect(r.status).toBe(1);
  }, 60_000);

  it("fails naming a production var its role's configuration refuses, and the rule", () => {
    const file = configCopy((t) =>
      t.replace(/JUDGE_TIMEOUT_MS = "30000"/, 'JUDGE_TIMEOUT_MS = "30s"'),
    );
    const r = checkBuilt("--config", file);
    expect(r.out).toMatch(/FAIL: score configuration is invalid: JUDGE_TIMEOUT_MS: .*number/);
    expect(r.status).toBe(1);
  }, 60_000);

  it("fails over the Free plan's limit only when the bundle is over it", () => {
    const r = checkBuilt("--plan", "free");
    const bytes = Number(/^bundle_gzip_bytes: (\d+)$/m.exec(r.out)?.[1]);
    expect(r.out).toMatch(/^plan_limit_bytes: 3145728 \(Workers Free/m);
    expect(r.status).toBe(bytes > 3145728 ? 1 : 0);
  }, 60_000);

  it("checks a prebuilt bundle as the build itself did, and refuses a folder without one", () => {
    const again = checkBuilt();
    expect(again.status).toBe(0);
    const line = (out: string, name: string) => new RegExp(`^${name}: .*$`, "m").exec(out)?.[0];
    for (const name of ["bundle_gzip_bytes", "plan_limit_bytes", "wrangler", "deploy:check"])
      expect(line(again.out, name), name).toBe(line(built.out, name));
    const empty = mkdtempSync(path.join(tmpdir(), "bouts-deploy-check-empty-"));
    try {
      const r = check("--prebuilt", empty);
      expect(r.out).toContain(`FAIL: ${empty} holds no bundle written by --outdir`);
      expect(r.status).toBe(1);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, 60_000);

  it("removes its own build folder when the build fails", () => {
    const file = configCopy((t) => t.replace(/^main = "[^"]+"/m, 'main = "missing/entry.ts"'));
    const tmp = mkdtempSync(path.join(tmpdir(), "bouts-deploy-check-tmp-"));
    try {
      const r = checkHere({ TMPDIR: tmp }, "--config", file);
      expect(r.out).toContain("FAIL: `wrangler deploy --dry-run --env production` failed");
      expect(r.status).toBe(1);
      expect(readdirSync(tmp).filter((f) => f.startsWith("bouts-deploy-check-"))).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("collectUsedNames", () => {
  it("finds env accesses, destructuring, declared env shapes and schema vars, not process.env", () => {
    const used = collectUsedNames([
      {
        path: "a.ts",
        text: `
          interface JudgeEnv { AI?: AiBinding; JUDGE_MODE?: string }
          type RunnerEnv = Pick<Env, "RUNNER_URL"> & { RUNNER?: Env["RUNNER"] };
          const S = z.object({ MAX_ARCHIVE_BYTES: z.coerce.number(), OPT: z.string().default("") });
          export function f(env: Env, c: { env: Env }) {
            const { DB } = env;
            return [env.ARTIFACTS, c.env.SUBMISSIONS, process.env.HOME, DB];
          }`,
      },
    ]);
    expect([...used.keys()].sort()).toEqual(
      [
        "AI",
        "ARTIFACTS",
        "DB",
        "JUDGE_MODE",
        "MAX_ARCHIVE_BYTES",
        "OPT",
        "RUNNER",
        "RUNNER_URL",
        "SUBMISSIONS",
      ].sort(),
    );
    expect(used.get("AI")?.binding).toBe(true);
    expect(used.get("RUNNER")?.binding).toBe(true);
    expect(used.get("JUDGE_MODE")?.binding).toBe(false);
    expect(used.get("MAX_ARCHIVE_BYTES")?.required).toBe(true);
    expect(used.get("OPT")?.required).toBe(false);
  });
});
