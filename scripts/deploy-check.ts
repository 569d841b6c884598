/**
 * `tsx scripts/deploy-check.ts [--config wrangler.toml] [--plan paid|free] [--outdir dir | --prebuilt dir] [--deploy]`:
 * builds the production bundle (`wrangler deploy --dry-run --env production`, offline, no
 * credentials), fails when a binding the bundled code uses is missing from [env.production],
 * warns on placeholders, and prints the gzipped size against the plan limit. `--deploy` runs the
 * same checks (placeholders then fail) and deploys with the domain and link origin derived here.
 * `--prebuilt dir` checks a config against the bundle an earlier run wrote with `--outdir dir`
 * from the same sources, without building again: bindings and vars do not change the bundled
 * code, so the test checks several edited copies of the config against one build.
 */
import { spawnSync, type SpawnSyncOptions } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import ts from "typescript";
import { unstable_readConfig } from "wrangler";
import { ConfigError, parseConfigVars } from "../packages/edge/src/config.ts";
import { createJudgePanel } from "../workers/score/src/judging.ts";
import { WORKER_CONFIGS } from "./lib/role-configs.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

/** Worker size limits after compression (developers.cloudflare.com/workers/platform/limits). */
export const PLAN_LIMITS = {
  paid: { bytes: 10 * 1024 * 1024, label: "Workers Paid: 10 MiB gzipped" },
  free: { bytes: 3 * 1024 * 1024, label: "Workers Free: 3 MiB gzipped" },
} as const;

/** Bindings the code may read that production never has, with why. */
export const TEST_ONLY_BINDINGS: Readonly<Record<string, string>> = {
  RUNNER_HTTP: "the vitest pool's service binding to the real runner (workers/score tests)",
};

/** The local D1 key of the top level; in production it is a placeholder. */
const PLACEHOLDER_HOSTS = /(^|\.)(example\.(com|org|net)|test|invalid|localhost)$/i;

/** Types that make a name a resource binding rather than a var. */
const BINDING_TYPES =
  /\b(R2Bucket|D1Database|Queue|DurableObjectNamespace|RateLimit|AiBinding|Ai|Fetcher|KVNamespace|Env\[)/;

/** The part of wrangler's resolved config this check reads (its own types do not resolve here). */
export interface Config {
  vars?: Record<string, unknown>;
  secrets?: { required?: string[] };
  ai?: { binding: string };
  d1_databases: { binding: string; database_name: string; database_id?: string }[];
  r2_buckets: { binding: string }[];
  queues: { producers?: { binding: string }[] };
  durable_objects: { bindings: { name: string }[] };
  ratelimits: { name: string }[];
  services?: { binding: string }[];
  kv_namespaces: { binding: string }[];
}

/** One name the bundled code reads from `env`, where, and what it knows of it. */
export interface UsedName {
  name: string;
  files: string[];
  /** A declared resource type (Queue, R2Bucket …) or an `Env[…]` reference. */
  binding: boolean;
  /** Read through a schema without a default (a required var). */
  required: boolean;
}

/** The names the given sources read from an `env` object (accesses, declared env shapes, schemas). */
export function collectUsedNames(files: { path: string; text: string }[]): Map<string, UsedName> {
  const used = new Map<string, UsedName>();
  const add = (name: string, file: string, o: { binding?: boolean; required?: boolean } = {}) => {
    if (!/^[A-Z][A-Z0-9_]+$/.test(name)) return;
    const u = used.get(name) ?? { name, files: [], binding: false, required: false };
    if (!u.files.includes(file)) u.files.push(file);
    u.binding ||= o.binding ?? false;
    u.required ||= o.required ?? false;
    used.set(name, u);
  };
  const isEnvExpr = (e: ts.Expression): boolean =>
    (ts.isIdentifier(e) && e.text === "env") ||
    (ts.isPropertyAccessExpression(e) &&
      e.name.text === "env" &&
      e.expression.getText() !== "process");
  for (const f of files) {
    const sf = ts.createSourceFile(f.path, f.text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) && isEnvExpr(node.expression))
        add(node.name.text, f.path);
      if (
        ts.isVariableDeclaration(node) &&
        node.initializer &&
        ts.isObjectBindingPattern(node.name) &&
        isEnvExpr(node.initializer)
      )
        for (const el of node.name.elements) add((el.propertyName ?? el.name).getText(), f.path);
      // Declared env shapes: interface JudgeEnv { AI?: AiBinding }, type RunnerEnv = Pick<Env, …> & {…}
      if (
        (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) &&
        /(Env|Vars|Bindings)$/.test(node.name.text)
      )
        collectShape(node, (name, type) =>
          add(name, f.path, { binding: BINDING_TYPES.test(type) }),
        );
      // Vars parsed with a schema: z.object({ MAX_ARCHIVE_BYTES: z.coerce.number() … })
      if (
        ts.isCallExpression(node) &&
        node.expression.getText().endsWith("z.object") &&
        node.arguments[0] &&
        ts.isObjectLiteralExpression(node.arguments[0])
      )
        for (const p of node.arguments[0].properties)
          if (ts.isPropertyAssignment(p) && /^[A-Z][A-Z0-9_]+$/.test(p.name.getText())) {
            const init = p.initializer.getText();
            add(p.name.getText(), f.path, {
              required: !/\.(default|prefault|optional)\(/.test(init),
            });
          }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return used;
}

function collectShape(node: ts.Node, add: (name: string, type: string) => void): void {
  const walk = (n: ts.Node): void => {
    if (ts.isPropertySignature(n) && n.name) add(n.name.getText(), n.type?.getText() ?? "");
    if (
      ts.isTypeReferenceNode(n) &&
      n.typeName.getText() === "Pick" &&
      n.typeArguments?.[0]?.getText() === "Env"
    ) {
      const keys = n.typeArguments[1];
      const lits = keys ? (ts.isUnionTypeNode(keys) ? keys.types : [keys]) : [];
      for (const l of lits)
        if (ts.isLiteralTypeNode(l) && ts.isStringLiteral(l.literal)) add(l.literal.text, "Env[");
    }
    ts.forEachChild(n, walk);
  };
  walk(node);
}

/** What production provides, by name. */
export function providedBy(config: Config): Map<string, string> {
  const m = new Map<string, string>();
  for (const d of config.d1_databases) m.set(d.binding, "D1");
  for (const r of config.r2_buckets) m.set(r.binding, "R2");
  for (const q of config.queues.producers ?? []) m.set(q.binding, "Queue");
  for (const d of config.durable_objects.bindings) m.set(d.name, "Durable Object");
  for (const r of config.ratelimits) m.set(r.name, "Rate Limit");
  for (const s of config.services ?? []) m.set(s.binding, "Service");
  for (const k of config.kv_namespaces) m.set(k.binding, "KV");
  if (config.ai?.binding) m.set(config.ai.binding, "AI");
  for (const v of Object.keys(config.vars ?? {})) m.set(v, "var");
  for (const s of config.secrets?.required ?? []) m.set(s, "secret");
  return m;
}

function varText(config: Config, name: string): string {
  const v = config.vars?.[name];
  return typeof v === "string" ? v : "";
}

/** The deploy arguments derived from BOUTS_PUBLIC_HOST: the custom domain and the link origin. */
export function derivedArgs(config: Config): { args: string[]; vars: string[]; error?: string } {
  const host = varText(config, "BOUTS_PUBLIC_HOST").trim();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i.test(host))
    return {
      args: [],
      vars: [],
      error: `[env.production.vars] BOUTS_PUBLIC_HOST must be the platform's host name (got ${JSON.stringify(host)})`,
    };
  return {
    args: ["--domain", host, "--var", `WEBHOOKS_LINK_ORIGIN:https://${host}`],
    vars: ["WEBHOOKS_LINK_ORIGIN"],
  };
}

export interface CheckResult {
  errors: string[];
  warnings: string[];
  notes: string[];
}

/** Compares what the code uses with what production provides; checks the model settings. */
export function checkConfig(
  used: Map<string, UsedName>,
  prod: Config,
  topLevel: Config,
): CheckResult {
  const r: CheckResult = { errors: [], warnings: [], notes: [] };
  const provided = providedBy(prod);
  const derived = derivedArgs(prod);
  if (derived.error) r.errors.push(derived.error);
  for (const v of derived.vars) provided.set(v, "derived var");
  const devProvided = providedBy(topLevel);
  for (const u of [...used.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    if (provided.has(u.name) || TEST_ONLY_BINDINGS[u.name]) continue;
    const where = u.files.slice(0, 3).join(", ");
    const devKind = devProvided.get(u.name);
    const isBinding =
      u.binding || (devKind !== undefined && devKind !== "var" && devKind !== "secret");
    if (isBinding)
      r.errors.push(
        `binding ${u.name} is used by the code (${where}) but missing from [env.production]` +
          (devKind ? ` (the top level has it as ${devKind}; bindings are not inherited)` : ""),
      );
    else if (devKind === "var")
      r.errors.push(
        `var ${u.name} is set at the top level and read by the code (${where}) but missing from [env.production.vars] (vars are not inherited)`,
      );
    else if (u.required)
      r.errors.push(`var ${u.name} is required by the code (${where}) but not set in production`);
    else r.notes.push(`${u.name}: not set in production; the code's default applies (${where})`);
  }
  const vars = { ...(prod.vars as Record<string, string>) };
  // Each role's configuration, parsed as the Worker parses it at its first request (secrets
  // stand in as set: their values are checked by the Worker, never seen here).
  const secrets = Object.fromEntries(
    (prod.secrets?.required ?? []).map((s) => [s, "x".repeat(64)]),
  );
  const derivedVars: Record<string, string> = {};
  derived.args.forEach((arg, i) => {
    if (derived.args[i - 1] !== "--var") return;
    const [name = "", ...value] = arg.split(":");
    derivedVars[name] = value.join(":");
  });
  let configValid = true;
  for (const { role, schema } of WORKER_CONFIGS)
    try {
      parseConfigVars(role, schema, { ...secrets, ...vars, ...derivedVars });
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      configValid = false;
      r.errors.push(`${e.message} ([env.production.vars])`);
    }
  // The production panel: three independent model judges and the model test generator.
  const ai = prod.ai?.binding ? { run: () => Promise.resolve({}) } : undefined;
  const panel = configValid ? createJudgePanel({ ...vars, AI: ai }) : null;
  if (!panel) r.errors.push("judges: not checked (the configuration is invalid)");
  else if (!panel.ok) r.errors.push(`judges: ${panel.error.detail}`);
  else {
    const ids = new Set(panel.value.judges.map((j) => j.id));
    if (panel.value.mode === "offline")
      r.errors.push("judges: production grades with the offline heuristic panel (set JUDGE_MODE)");
    else if (ids.size < 3)
      r.errors.push(`judges: ${ids.size} distinct model judges; the seed asks for three`);
    else r.notes.push(`judges (${panel.value.mode}): ${[...ids].join(", ")}`);
  }
  // The generator's module reaches the runner client (cloudflare: imports): its rules, restated.
  const genMode = vars.GENERATOR_MODE || "deterministic";
  if (genMode === "deterministic")
    r.warnings.push("test generator: deterministic only (GENERATOR_MODE unset)");
  else if (genMode !== "workers-ai" && genMode !== "openai")
    r.errors.push(`test generator: unknown GENERATOR_MODE ${JSON.stringify(genMode)}`);
  else if (!vars.GENERATOR_MODEL) r.errors.push(`test generator: ${genMode} needs GENERATOR_MODEL`);
  else if (genMode === "workers-ai" && !ai)
    r.errors.push("test generator: GENERATOR_MODE=workers-ai needs the AI binding");
  else r.notes.push(`test generator: ${genMode} ${vars.GENERATOR_MODEL}`);
  // Ids only the operator can know.
  const localDb = new Set(topLevel.d1_databases.map((d) => d.database_id));
  for (const d of prod.d1_databases)
    if (!d.database_id || localDb.has(d.database_id) || /^0{8}-/.test(d.database_id))
      r.warnings.push(
        `D1 ${d.binding}: database_id is a placeholder; replace it with the id \`wrangler d1 create ${d.database_name}\` prints`,
      );
  const host = varText(prod, "BOUTS_PUBLIC_HOST");
  if (PLACEHOLDER_HOSTS.test(host))
    r.warnings.push(`BOUTS_PUBLIC_HOST is a placeholder (${host}); set your own host name`);
  return r;
}

/** The files of the bundle that count against the limit (modules, not source maps). */
export function bundleGzipBytes(outdir: string, modules: string[]): number {
  return modules
    .filter((m) => !m.endsWith(".map") && !m.endsWith("README.md"))
    .reduce((n, m) => n + gzipSync(readFileSync(path.join(outdir, m))).length, 0);
}

interface Metafile {
  inputs: Record<string, unknown>;
}

function parseArgs(argv: string[]) {
  const o = {
    config: path.join(ROOT, "wrangler.toml"),
    plan: "paid",
    outdir: "",
    prebuilt: "",
    deploy: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--deploy") o.deploy = true;
    else if (a === "--config" || a === "--plan" || a === "--outdir" || a === "--prebuilt") {
      const v = argv[++i];
      if (!v) throw new Error(`${a} needs a value`);
      o[a.slice(2) as "config" | "plan" | "outdir" | "prebuilt"] = v;
    } else throw new Error(`unknown argument ${a}`);
  }
  if (o.plan !== "paid" && o.plan !== "free") throw new Error("--plan is paid or free");
  if (o.prebuilt && (o.outdir || o.deploy))
    throw new Error("--prebuilt checks a bundle already built: not with --outdir or --deploy");
  const plan: keyof typeof PLAN_LIMITS = o.plan === "free" ? "free" : "paid";
  return { ...o, plan };
}

/** Where a build keeps wrangler's output beside the bundle, for a `--prebuilt` check to read. */
const WRANGLER_OUTPUT = "wrangler-output.txt";

type Build = { status: number | null; stdout: string; stderr: string };

/** `wrangler deploy --env production --config <configPath>` with more arguments (text output). */
function wranglerDeploy(configPath: string, args: string[], options: SpawnSyncOptions) {
  const wrangler = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
  const argv = [wrangler, "deploy", "--env", "production", "--config", configPath, ...args];
  return spawnSync(process.execPath, argv, { ...options, encoding: "utf8" });
}

/** `wrangler deploy --dry-run` into `outdir`, its metafile and output kept there. */
function buildBundle(
  configPath: string,
  outdir: string,
  env: Record<string, string | undefined>,
  args: string[],
): Build {
  const build = wranglerDeploy(
    configPath,
    [
      "--dry-run",
      "--outdir",
      outdir,
      "--metafile",
      path.join(outdir, "meta.json"),
      "--containers-rollout=none",
      ...args,
    ],
    { cwd: ROOT, env },
  );
  if (build.status === 0) writeFileSync(path.join(outdir, WRANGLER_OUTPUT), build.stdout);
  return build;
}

/** The build an earlier `--outdir` run left in `outdir` (status 1 when there is none). */
function readPrebuilt(outdir: string): Build {
  const files = [path.join(outdir, "meta.json"), path.join(outdir, WRANGLER_OUTPUT)];
  if (!files.every((f) => existsSync(f))) return { status: 1, stdout: "", stderr: "" };
  return { status: 0, stdout: readFileSync(files[1]!, "utf8"), stderr: "" };
}

/** Builds (or reads the prebuilt) bundle in `outdir` and checks it and the config; the exit code. */
function checkBundle(o: {
  configPath: string;
  outdir: string;
  prebuilt: string;
  deploy: boolean;
  plan: keyof typeof PLAN_LIMITS;
  env: Record<string, string | undefined>;
  args: string[];
  prod: Config;
  top: Config;
}): number {
  const { configPath, outdir, prebuilt, deploy, plan, env, args, prod, top } = o;
  const build = prebuilt ? readPrebuilt(outdir) : buildBundle(configPath, outdir, env, args);
  if (build.status !== 0) {
    process.stderr.write(build.stdout + build.stderr);
    console.error(
      prebuilt
        ? `deploy:check: FAIL: ${prebuilt} holds no bundle written by --outdir`
        : "deploy:check: FAIL: `wrangler deploy --dry-run --env production` failed",
    );
    return 1;
  }
  const meta = JSON.parse(readFileSync(path.join(outdir, "meta.json"), "utf8")) as Metafile;
  const sources = Object.keys(meta.inputs)
    .filter((p) => /\.(m?[jt]s)$/.test(p) && !p.includes("node_modules"))
    .map((p) => path.resolve(ROOT, p))
    .map((p) => ({ path: path.relative(ROOT, p), text: readFileSync(p, "utf8") }));
  const result = checkConfig(collectUsedNames(sources), prod, top);
  // Every module wrangler wrote: esbuild's outputs and the additional modules that
  // `[[rules]]` add (Swagger UI's files, design.md §37), which the metafile does not list.
  const modules = readdirSync(outdir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(outdir, path.join(d.parentPath, d.name)))
    .filter((m) => m !== "meta.json" && m !== WRANGLER_OUTPUT);
  const gzip = bundleGzipBytes(outdir, modules);
  const limit = PLAN_LIMITS[plan];
  const reported = /Total Upload: .*/.exec(build.stdout)?.[0];
  for (const n of result.notes) console.log(`note: ${n}`);
  for (const w of result.warnings) console.warn(`warning: ${w}`);
  if (reported) console.log(`wrangler: ${reported}`);
  console.log(`bundle_gzip_bytes: ${gzip}`);
  console.log(`plan_limit_bytes: ${limit.bytes} (${limit.label})`);
  if (gzip > limit.bytes)
    result.errors.push(`the bundle is ${gzip} bytes gzipped, over the ${limit.label} limit`);
  if (deploy)
    for (const w of result.warnings) result.errors.push(`not deploying with a placeholder: ${w}`);
  for (const e of result.errors) console.error(`deploy:check: FAIL: ${e}`);
  if (result.errors.length) return 1;
  console.log(`deploy:check: ok (${sources.length} bundled sources checked)`);
  return 0;
}

/** Runs the check; returns the exit code. */
export function main(argv: string[]): number {
  const opts = parseArgs(argv);
  const configPath = path.resolve(opts.config);
  const read = (env?: string): Config =>
    (unstable_readConfig as (a: object, b: object) => Config)(
      { config: configPath, env },
      { hideWarnings: true },
    );
  const prod = read("production");
  const top = read();
  const derived = derivedArgs(prod);
  const outdir =
    opts.prebuilt || opts.outdir || mkdtempSync(path.join(tmpdir(), "bouts-deploy-check-"));
  // Offline by construction: no credentials reach wrangler, metrics off.
  const env: Record<string, string | undefined> = {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    CI: "true",
  };
  for (const k of ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY", "CLOUDFLARE_EMAIL"]) delete env[k];
  // A build folder of our own goes on every path, a refusal or a throw included.
  const temporary = !opts.outdir && !opts.prebuilt;
  let code: number;
  try {
    code = checkBundle({ ...opts, configPath, outdir, env, args: derived.args, prod, top });
  } finally {
    if (temporary) rmSync(outdir, { recursive: true, force: true });
  }
  if (code !== 0 || !opts.deploy) return code;
  return wranglerDeploy(configPath, derived.args, { cwd: ROOT, stdio: "inherit" }).status ?? 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    console.error(`deploy:check: FAIL: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  }
}
