/**
 * @module cli/main
 * `bouts <command>` (`npm run bouts -- …`, or the installed `bouts` bin): `submit <dir>
 * --challenge <slug>` packs the folder (cli/pack), enters the challenge (idempotent), submits
 * with an idempotency key (the archive's SHA-256 unless given, so re-running the same command
 * replays rather than spending an iteration), shows progress until scored and prints the
 * breakdown; `status <id>`, `breakdown <id>`, `leaderboard <slug>`, `watch <slug>` (live rank
 * changes over the board's WebSocket); `final-choices` and `choose-final` (the private board's
 * final choices), `webhooks list|create|delete|test`, `submissions <slug>` and `history`
 * (audit trails, paged with `--after`). All calls go through @bouts/client, on the documented
 * routes only. `--json` prints the API's answer as it came.
 * Invariants: a key on the command line is refused (it would be visible in `ps`); a problem
 * answer prints its status, title and `detail` and exits 1; everything printed passes
 * `stripTerminalControls`, and every field of an answer `cleanField` (cli/terminal-text).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  BoutsApiError,
  createBoutsClient,
  submit,
  unwrap,
  type BoutsClient,
  type Schemas,
} from "@bouts/client";
import { configPath, loadConfig, type CliConfig } from "./config.ts";
import { packFolder } from "./pack.ts";
import {
  renderBoardMessage,
  renderBreakdown,
  renderFinalChoices,
  renderHistory,
  renderLeaderboard,
  renderProblem,
  renderStatus,
  renderSubmissions,
  renderWebhookCreated,
  renderWebhooks,
} from "./render.ts";
import { cleanField, stripTerminalControls } from "./terminal-text.ts";

/** What a command writes to; tests pass their own. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /** The client factory (tests may point it at a Worker). */
  connect?: (config: CliConfig, withKey: boolean) => BoutsClient;
}

const USAGE = `usage: bouts <command> [--json]
  submit <dir> --challenge <slug> [--trace <file>] [--claims <file.json>]
                [--idempotency-key <key>] [--no-wait] [--timeout <seconds>]
  status <submission-id>
  breakdown <submission-id>
  leaderboard <slug> [--limit <n>] [--cursor <c>] [--sort rank|cost] [--max-cost-usd <usd>]
  watch <slug>
  submissions <slug>                       your submissions to the challenge, newest first
  history <submission-id> [--after <seq>] [--limit <n>]
                                           a submission's audit trail (yours), oldest first
  history --challenge <slug> [--after <seq>] [--limit <n>]
                                           the challenge's public audit trail
  final-choices <slug>                     your final choices for the private board
  choose-final <slug> <submission-id>...   replace them (--clear: none, the latest counts)
  webhooks list
  webhooks create <url> --event <type> [--event <type>...]   (the secret is shown once)
  webhooks delete <webhook-id>
  webhooks test <webhook-id>               queue a webhook.test event
--json prints the API's answer as it came (JSON), for scripts.
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

const OPTIONS = {
  challenge: { type: "string" },
  trace: { type: "string" },
  claims: { type: "string" },
  "idempotency-key": { type: "string" },
  "no-wait": { type: "boolean" },
  timeout: { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  sort: { type: "string" },
  "max-cost-usd": { type: "string" },
  after: { type: "string" },
  event: { type: "string", multiple: true },
  clear: { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (e) {
    // node:util's own refusals (an unknown option, a missing value) are usage errors.
    if (e instanceof TypeError && "code" in e && String(e.code).startsWith("ERR_PARSE_ARGS"))
      throw new UsageError(e.message);
    throw e;
  }
}

/** `--name <n>` as an integer of at least `min`, or undefined when not given. */
function integerOption(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(`--${name} takes an integer ≥ ${min}, not "${cleanField(value)}"`);
  return Number(value);
}

/** The webhook event types from `--event` (repeated, or comma-separated). */
function eventTypes(
  values: readonly string[] | undefined,
): Schemas["RegisterWebhookBody"]["eventTypes"] {
  const types = (values ?? [])
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
  if (types.length === 0)
    throw new UsageError(
      "webhooks create needs --event <type> (submission.scored, submission.failed, " +
        "submission.rescored, leaderboard.overtaken)",
    );
  // The API checks the names (400 naming the bad one); the CLI keeps no copy of the list.
  return types as Schemas["RegisterWebhookBody"]["eventTypes"];
}

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: string[], io?: Partial<CliIo>): Promise<number> {
  const write = io?.out ?? ((l: string) => console.log(l));
  const writeErr = io?.err ?? ((l: string) => console.error(l));
  // A second guard behind the renderings: nothing printed can drive the terminal.
  const out = (text: string) => write(stripTerminalControls(text));
  const err = (text: string) => writeErr(stripTerminalControls(text));
  const env = io?.env ?? process.env;
  try {
    refuseKeyArguments(argv);
    const { values, positionals } = parseCommandLine(argv);
    const [command, arg, ...rest] = positionals;
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
    const keyed = () => {
      requireKey(config, env);
      return connect(config, true);
    };
    /** Prints the answer: as JSON with --json, else its rendering. */
    const show = <T>(answer: T, render: (a: T) => string) =>
      out(values.json ? JSON.stringify(answer ?? null, null, 2) : render(answer));
    switch (command) {
      case "submit": {
        const dir = need("a folder");
        const challenge = values.challenge;
        if (!challenge) throw new UsageError("submit needs --challenge <slug>");
        const client = keyed();
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
        const deadline = Date.now() + (integerOption("timeout", values.timeout, 1) ?? 900) * 1000;
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
              : `still ${view.status}; run: bouts status ${cleanField(view.id)}`,
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
        const s = await unwrap(
          keyed().GET("/v1/submissions/{id}", {
            params: { path: { id: need("a submission id") } },
          }),
        );
        show(s, renderStatus);
        return 0;
      }
      case "breakdown": {
        // With the key, the owner view of one's own submission; the public view otherwise.
        const b = await unwrap(
          connect(config, config.key !== null).GET("/v1/submissions/{id}/breakdown", {
            params: { path: { id: need("a submission id") } },
          }),
        );
        show(b, renderBreakdown);
        return 0;
      }
      case "leaderboard": {
        const sort = values.sort;
        if (sort !== undefined && sort !== "rank" && sort !== "cost")
          throw new UsageError(`--sort is rank or cost, not "${cleanField(sort)}"`);
        const limit = integerOption("limit", values.limit, 1);
        const page = await unwrap(
          connect(config, false).GET("/v1/challenges/{id}/leaderboard", {
            params: {
              path: { id: need("a challenge slug") },
              query: {
                ...(limit !== undefined ? { limit } : {}),
                ...(values.cursor ? { cursor: values.cursor } : {}),
                ...(sort ? { sort } : {}),
                ...(values["max-cost-usd"] ? { maxCostUsd: values["max-cost-usd"] } : {}),
              },
            },
          }),
        );
        show(page, (p) => renderLeaderboard(p, { firstPage: !values.cursor }));
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
      case "submissions": {
        const list = await unwrap(
          keyed().GET("/v1/challenges/{id}/submissions", {
            params: { path: { id: need("a challenge slug") } },
          }),
        );
        show(list, (l) => renderSubmissions(l.submissions));
        return 0;
      }
      case "history": {
        const after = integerOption("after", values.after, 0);
        const limit = integerOption("limit", values.limit, 1);
        const query = {
          ...(after !== undefined ? { after } : {}),
          ...(limit !== undefined ? { limit } : {}),
        };
        if (values.challenge) {
          if (arg) throw new UsageError("history takes a submission id or --challenge, not both");
          const page = await unwrap(
            connect(config, false).GET("/v1/challenges/{id}/history", {
              params: { path: { id: values.challenge }, query },
            }),
          );
          show(page, (h) => renderHistory(h, after));
          return 0;
        }
        const page = await unwrap(
          keyed().GET("/v1/submissions/{id}/history", {
            params: { path: { id: need("a submission id (or --challenge <slug>)") }, query },
          }),
        );
        show(page, (h) => renderHistory(h, after));
        return 0;
      }
      case "final-choices": {
        const choices = await unwrap(
          keyed().GET("/v1/challenges/{id}/final-choices", {
            params: { path: { id: need("a challenge slug") } },
          }),
        );
        show(choices, renderFinalChoices);
        return 0;
      }
      case "choose-final": {
        const slug = need("a challenge slug and the submission ids to choose");
        if (Boolean(values.clear) === rest.length > 0)
          throw new UsageError("choose-final needs the submission ids to choose, or --clear");
        const choices = await unwrap(
          keyed().PUT("/v1/challenges/{id}/final-choices", {
            params: { path: { id: slug } },
            body: { submissionIds: rest },
          }),
        );
        show(choices, renderFinalChoices);
        return 0;
      }
      case "webhooks":
        return await webhooks(arg, rest, keyed, show, values);
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      err(`bouts: ${e.message}\n${USAGE}`);
      return 2;
    }
    if (e instanceof BoutsApiError) {
      err(`bouts: ${e.problem ? renderProblem(e.problem) : e.message}`);
      return 1;
    }
    err(`bouts: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

/** `webhooks list|create|delete|test`: the agent's endpoints (docs/webhooks.md). */
async function webhooks(
  action: string | undefined,
  args: string[],
  keyed: () => BoutsClient,
  show: <T>(answer: T, render: (a: T) => string) => void,
  values: { event?: string[]; json?: boolean },
): Promise<number> {
  const one = (what: string) => {
    if (args.length !== 1) throw new UsageError(`webhooks ${action} needs ${what}`);
    return args[0]!;
  };
  switch (action) {
    case "list": {
      const { endpoints } = await unwrap(keyed().GET("/v1/webhooks"));
      show({ endpoints }, (a) => renderWebhooks(a.endpoints));
      return 0;
    }
    case "create": {
      const url = one("a URL");
      const created = await unwrap(
        keyed().POST("/v1/webhooks", { body: { url, eventTypes: eventTypes(values.event) } }),
      );
      show(created, renderWebhookCreated);
      return 0;
    }
    case "delete": {
      const id = one("a webhook id");
      await unwrap(keyed().DELETE("/v1/webhooks/{id}", { params: { path: { id } } }));
      // 204: the API answers nothing, so --json prints nothing either.
      if (!values.json) show(id, (i) => `deleted ${cleanField(i)}`);
      return 0;
    }
    case "test": {
      const id = one("a webhook id");
      const queued = await unwrap(
        keyed().POST("/v1/webhooks/{id}/test", { params: { path: { id } } }),
      );
      show(
        queued,
        (q) =>
          `queued a webhook.test event for ${cleanField(id)}: message ${cleanField(q.messageId)}, event ${cleanField(q.eventId)}`,
      );
      return 0;
    }
    default:
      throw new UsageError(
        action
          ? `unknown webhooks action: ${action}`
          : "webhooks needs list, create, delete or test",
      );
  }
}
