/**
 * @module edge/config
 * One configuration per role (docs/design.md §38): a zod schema of the role's vars and secrets,
 * parsed once per `env` object (Workers hand the same `env` to every request of an isolate, and
 * vars never change while it lives) into a frozen, typed value. Invariants: only the schema's
 * keys are read, an empty string is "unset" (wrangler writes `""` for a var left blank), and a
 * bad value throws a `ConfigError` naming each variable and its rule, never a guess.
 */
import type { z } from "zod";

/** A misconfigured deployment: every bad variable, as `NAME: rule`. Secret values never appear. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly code = "invalid-config" as const;
  readonly role: string;
  readonly issues: readonly string[];
  constructor(role: string, issues: readonly string[]) {
    super(`${role} configuration is invalid: ${issues.join("; ")}`);
    this.role = role;
    this.issues = issues;
  }
}

/** One variable of a role's schema, for the generated docs table (`npm run docs:config`). */
export interface ConfigVariable {
  name: string;
  description: string;
  /** The default as text, or null when the variable has none (required or optional). */
  defaultValue: string | null;
  required: boolean;
}

/**
 * A reader of a role's configuration: `schema` parses the env's vars, `build` shapes the result.
 * The answer is memoised per env object and frozen; a bad value throws `ConfigError`.
 *
 * @example
 * const readConfig = createConfigReader("ingest", Schema, (v) => ({ maxBytes: v.MAX_BYTES }));
 * readConfig(env).maxBytes;
 */
export function createConfigReader<S extends z.ZodObject, T>(
  role: string,
  schema: S,
  build: (vars: z.output<S>) => T,
): (env: object) => Readonly<T> {
  const parsed = new WeakMap<object, Readonly<T>>();
  return (env) => {
    let config = parsed.get(env);
    if (!config) {
      config = Object.freeze(build(parseConfigVars(role, schema, env)));
      parsed.set(env, config);
    }
    return config;
  };
}

/** Parses the schema's keys of `env` ("" counts as unset); throws `ConfigError` naming each bad key. */
export function parseConfigVars<S extends z.ZodObject>(
  role: string,
  schema: S,
  env: object,
): z.output<S> {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = (env as Record<string, unknown>)[key];
    if (value !== undefined && value !== "") raw[key] = value;
  }
  const result = schema.safeParse(raw);
  if (!result.success)
    throw new ConfigError(
      role,
      result.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`),
    );
  return result.data;
}

/** The schema's variables with their descriptions and defaults, in declaration order. */
export function listConfigVariables(schema: z.ZodObject): ConfigVariable[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const f = field as z.ZodType;
    const fallback = defaultOf(f);
    return {
      name,
      description: f.description ?? "",
      defaultValue: fallback === undefined ? null : formatDefault(fallback),
      required: fallback === undefined && !f.safeParse(undefined).success,
    };
  });
}

/** The default as written in the schema (before any transform), or undefined. */
function defaultOf(t: z.core.$ZodType): unknown {
  const def = t._zod.def as { type: string; defaultValue?: unknown; in?: z.core.$ZodType };
  if (def.type === "default" || def.type === "prefault") return def.defaultValue;
  if (def.type === "pipe" && def.in) return defaultOf(def.in);
  return undefined;
}

function formatDefault(value: unknown): string {
  if (Array.isArray(value)) return value.join(",");
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
}
