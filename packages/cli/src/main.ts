/**
 * @module cli/main
 * `bouts <command>` (`npm run bouts -- …`, or the installed `bouts` bin): `submit <dir>
 * --challenge <slug>` packs the folder (cli/pack), enters the challenge (idempotent), submits
 * with an idempotency key (the archive's SHA-256 unless given, so re-running the same command
 * replays rather than spending an iteration), shows progress until scored and prints the
 * breakdown; `status <id>`, `breakdown <id>`, `leaderboard <slug>`, and `watch <slug>`
 * (live rank changes over the board's WebSocket). All calls go through @bouts/client.
 * Invariant: a key on the command line is refused (it would be visible in `ps`).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { BoutsApiError, createBoutsClient, submit, unwrap, type BoutsClient } from "@bouts/client";
import { configPath, loadConfig, type CliConfig } from "./config.ts";
import { packFolder } from "./pack.ts";
import { renderBoardMessage, renderBreakdown, renderLeaderboard, renderStatus } from "./render.ts";

/** What a command writes to; tests pass their own. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /** The client factory (tests may point it at a Worker). */
  connect?: (config: CliConfig, withKey: boolean) => BoutsClient;
}

const USAGE = `usage: bouts <command>
  submit <dir> --challenge <slug> [--trace <file>] [--claims <file.json>]
                [--idempotency-key <key>] [--no-wait] [--timeout <seconds>]
  status <submission-id>
  breakdown <submission-id>
  leaderboard <slug> [--limit <n>] [--cursor <c>]
  watch <slug>
The key comes from BOUTS_API_KEY or the config file (BOUTS_CONFIG, default
~/.config/bouts/config.json: { "apiUrl": "...", "key": "..." }, mode 600); the API from
BOUTS_API_URL or the file (default http://127.0.0.1:8787). Never pass a key as an argument.`;

const SETTLED = new Set(["scored", "failed"]);

/** Thrown for a usage error: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/** Refuses anything that looks like a key on the command line. */
export function refuseKeyArguments(args: readonly string[]): void {
  for (const a of args) {
    if (/^--?(key|api-key|token)(=|$)/.test(a) || /^bouts_[0-9a-f]{24}_/.test(a)) {
      throw new UsageError(
        "a key on the command line is visible to every user in `ps`: set BOUTS_API_KEY or " +
          "put it in the config file instead",
      );
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function requireKey(config: CliConfig, env: NodeJS.ProcessEnv): string {
  if (!config.key)
    throw new UsageError(`no key: set BOUTS_API_KEY, or "key" in ${configPath(env)}`);
  return config.key;
}

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: string[], io?: Partial<CliIo>): Promise<number> {
  const out = io?.out ?? ((l: string) => console.log(l));
  const err = io?.err ?? ((l: string) => console.error(l));
  const env = io?.env ?? process.env;
  try {
    refuseKeyArguments(argv);
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        challenge: { type: "string" },
        trace: { type: "string" },
        claims: { type: "string" },
        "idempotency-key": { type: "string" },
        "no-wait": { type: "boolean" },
        timeout: { type: "string" },
        limit: { type: "string" },
        cursor: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
    const [command, arg] = positionals;
    if (values.help || !command) {
      out(USAGE);
      return command || values.help ? 0 : 2;
    }
    const config = loadConfig(env);
    const connect =
      io?.connect ??
      ((c: CliConfig, withKey: boolean) =>
        createBoutsClient({ baseUrl: c.apiUrl, key: withKey ? c.key : null }));
    const need = (what: string) => {
      if (!arg) throw new UsageError(`${command} needs ${what}`);
      return arg;
    };
    switch (command) {
      case "submit": {
        const dir = need("a folder");
        const challenge = values.challenge;
        if (!challenge) throw new UsageError("submit needs --challenge <slug>");
        requireKey(config, env);
        const client = connect(config, true);
        const { archive, files } = packFolder(dir);
        out(`packed ${files.length} file(s), ${archive.length} bytes`);
        const idempotencyKey =
          values["idempotency-key"] ??
          `cli-${createHash("sha256").update(archive).digest("hex").slice(0, 48)}`;
        const entered = await client.POST("/v1/challenges/{id}/entries", {
          params: { path: { id: challenge } },
        });
        if (!entered.response.ok) await unwrap(Promise.resolve(entered));
        const { submission, replayed } = await submit(client, challenge, {
          archive,
          trace: values.trace ? readFileSync(values.trace) : null,
          claims: values.claims
            ? (JSON.parse(readFileSync(values.claims, "utf8")) as unknown[])
            : null,
          idempotencyKey,
        });
        out(
          `${replayed ? "already submitted (replayed)" : "submitted"}: ${renderStatus(submission)}`,
        );
        if (values["no-wait"]) return 0;
        const deadline = Date.now() + Number(values.timeout ?? 900) * 1000;
        let view = submission;
        let last = "";
        while (!SETTLED.has(view.status) && Date.now() < deadline) {
          await sleep(2000);
          view = await unwrap(
            client.GET("/v1/submissions/{id}", { params: { path: { id: submission.id } } }),
          );
          if (view.status !== last) out(`  … ${renderStatus(view)}`);
          last = view.status;
        }
        if (view.status !== "scored") {
          err(
            SETTLED.has(view.status)
              ? renderStatus(view)
              : `still ${view.status}; run: bouts status ${view.id}`,
          );
          return 1;
        }
        out(
          renderBreakdown(
            await unwrap(
              client.GET("/v1/submissions/{id}/breakdown", { params: { path: { id: view.id } } }),
            ),
          ),
        );
        return 0;
      }
      case "status": {
        requireKey(config, env);
        const s = await unwrap(
          connect(config, true).GET("/v1/submissions/{id}", {
            params: { path: { id: need("a submission id") } },
          }),
        );
        out(renderStatus(s));
        return 0;
      }
      case "breakdown": {
        // With the key, the owner view of one's own submission; the public view otherwise.
        const b = await unwrap(
          connect(config, config.key !== null).GET("/v1/submissions/{id}/breakdown", {
            params: { path: { id: need("a submission id") } },
          }),
        );
        out(renderBreakdown(b));
        return 0;
      }
      case "leaderboard": {
        const page = await unwrap(
          connect(config, false).GET("/v1/challenges/{id}/leaderboard", {
            params: {
              path: { id: need("a challenge slug") },
              query: {
                ...(values.limit ? { limit: Number(values.limit) } : {}),
                ...(values.cursor ? { cursor: values.cursor } : {}),
              },
            },
          }),
        );
        out(renderLeaderboard(page));
        return 0;
      }
      case "watch": {
        const slug = need("a challenge slug");
        const url = new URL(
          `/v1/challenges/${encodeURIComponent(slug)}/leaderboard/ws`,
          config.apiUrl,
        );
        url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
        return await new Promise<number>((resolve) => {
          const ws = new WebSocket(url);
          const ping = setInterval(
            () => ws.readyState === WebSocket.OPEN && ws.send("ping"),
            30_000,
          );
          ws.addEventListener("open", () => out(`watching ${slug} (Ctrl-C to stop)`));
          ws.addEventListener("message", (e) => {
            const text = String(e.data);
            if (text !== "pong") out(renderBoardMessage(text));
          });
          ws.addEventListener("error", () => err(`WebSocket error on ${url.href}`));
          ws.addEventListener("close", (e) => {
            clearInterval(ping);
            resolve(e.code === 1000 ? 0 : 1);
          });
        });
      }
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      err(`bouts: ${e.message}\n${USAGE}`);
      return 2;
    }
    if (e instanceof BoutsApiError) {
      err(`bouts: ${e.message}`);
      return 1;
    }
    err(`bouts: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}
