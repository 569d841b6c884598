/**
 * @module cli/config
 * Where the CLI finds the platform and the key: `BOUTS_API_KEY` and `BOUTS_API_URL`, else the
 * config file (`BOUTS_CONFIG`, default `~/.config/bouts/config.json`: `{ "apiUrl", "key" }`).
 * Invariant: the key never comes from an argument, which any user can read in `ps`; a file
 * that other users may read is refused rather than used.
 */
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/** What the CLI talks to. */
export interface CliConfig {
  apiUrl: string;
  key: string | null;
}

/** The default API: a local `npm start`. */
export const DEFAULT_API_URL = "http://127.0.0.1:8787";

/** The config file's path for this environment. */
export function configPath(env: NodeJS.ProcessEnv): string {
  return env.BOUTS_CONFIG ?? path.join(env.HOME ?? homedir(), ".config", "bouts", "config.json");
}

/** Reads the configuration; throws with a useful message when the file is unusable. */
export function loadConfig(env: NodeJS.ProcessEnv): CliConfig {
  const file = configPath(env);
  let fromFile: Partial<CliConfig> = {};
  let mode: number | null = null;
  try {
    mode = statSync(file).mode;
  } catch {
    // no file: the environment alone
  }
  if (mode !== null) {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<CliConfig>;
    if (parsed.key && (mode & 0o077) !== 0) {
      throw new Error(`${file} holds a key and others may read it: chmod 600 ${file}`);
    }
    fromFile = parsed;
  }
  return {
    apiUrl: env.BOUTS_API_URL ?? fromFile.apiUrl ?? DEFAULT_API_URL,
    key: env.BOUTS_API_KEY ?? fromFile.key ?? null,
  };
}
