/**
 * `npm run smoke -- <base-url> [--challenge <slug>] [--receiver <url> [--listen <port>]]` — an
 * end-to-end check of a running platform, local or deployed, through its public surfaces only:
 * creates an agent (operator key from BOUTS_OPERATOR_KEY, or `--operator-key`), enters the
 * challenge, submits the example `challenges/<slug>/submissions/complete`, waits for the score,
 * then checks the leaderboard, the breakdown (owner and public views) and the public pages; with
 * `--receiver`, it registers a webhook endpoint there, receives the `submission.scored` delivery
 * itself and verifies its Standard Webhooks signature with the independent `standardwebhooks`
 * package. Every API call goes through the typed client (`@bouts/client`). Each step prints `smoke: ok <step>`; figures print as `name: value`. Exit 0 when every
 * step passed, 1 on the first failure (named), 2 on bad arguments.
 */
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { createBoutsClient, submit, unwrap, type BoutsClient } from "@bouts/client";
import { Webhook } from "standardwebhooks";
import { packDirectory, ROOT } from "./lib/local-platform.ts";

const USAGE =
  "usage: npm run smoke -- <base-url> [--challenge <slug>] [--receiver <url> [--listen <port>]] " +
  "[--timeout <seconds>] (operator key: BOUTS_OPERATOR_KEY, or --operator-key)";

/** What the smoke was asked to check. */
export interface SmokeOptions {
  /** The platform's origin, e.g. https://bouts.example.org (a trailing /v1 is dropped). */
  base: string;
  operatorKey: string;
  challenge: string;
  /** The webhook target to register; null skips the webhook step. */
  receiver: string | null;
  /** The local port the receiver's deliveries reach (the receiver URL's own by default). */
  listen: number | null;
  timeoutMs: number;
}

class SmokeFailure extends Error {
  override name = "SmokeFailure";
}

/** Parses the command line; a message for the user when it is not usable. */
export function parseSmokeArgs(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { ok: true; value: SmokeOptions } | { ok: false; error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        "operator-key": { type: "string" },
        challenge: { type: "string", default: "deep-merge" },
        receiver: { type: "string" },
        listen: { type: "string" },
        timeout: { type: "string", default: "300" },
      },
    });
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) return { ok: false, error: "give exactly one base URL" };
  let base: URL;
  try {
    base = new URL(positionals[0]!);
  } catch {
    return { ok: false, error: `not a URL: ${positionals[0]}` };
  }
  if (base.protocol !== "http:" && base.protocol !== "https:")
    return { ok: false, error: "the base URL must be http or https" };
  const operatorKey = env.BOUTS_OPERATOR_KEY || values["operator-key"];
  if (!operatorKey) return { ok: false, error: "no operator key (BOUTS_OPERATOR_KEY)" };
  const timeout = Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0)
    return { ok: false, error: "--timeout must be a positive number of seconds" };
  let listen: number | null = null;
  if (values.receiver) {
    let target: URL;
    try {
      target = new URL(values.receiver);
    } catch {
      return { ok: false, error: `not a URL: ${values.receiver}` };
    }
    const port = values.listen ?? (isLoopback(target.hostname) ? target.port : "");
    listen = Number(port);
    if (!Number.isInteger(listen) || listen < 1 || listen > 65535)
      return {
        ok: false,
        error: "--listen <port> is needed: where do the receiver's deliveries reach this machine?",
      };
  }
  return {
    ok: true,
    value: {
      base: base.origin + base.pathname.replace(/\/+$/, "").replace(/\/v1$/, ""),
      operatorKey,
      challenge: values.challenge,
      receiver: values.receiver ?? null,
      listen,
      timeoutMs: timeout * 1000,
    },
  };
}

const isLoopback = (host: string) =>
  host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);

/** One received webhook delivery: its headers and raw body. */
interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** A loopback-or-any-interface HTTP server that keeps every POST it receives. */
async function startReceiver(port: number): Promise<{ server: Server; deliveries: Delivery[] }> {
  const deliveries: Delivery[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST") {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
        deliveries.push({ headers, body: Buffer.concat(chunks).toString("utf8") });
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, resolve);
  });
  return { server, deliveries };
}

/** Runs every step against `o`; resolves when all passed, throws the first failure. */
export async function runSmoke(o: SmokeOptions, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const deadline = started + o.timeoutMs;
  const step = async <T>(name: string, f: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    try {
      const v = await f();
      log(`smoke: ok ${name} (${Date.now() - t0} ms)`);
      return v;
    } catch (e) {
      throw new SmokeFailure(`${name}: ${(e as Error).message}`);
    }
  };
  const anonymous = createBoutsClient({ baseUrl: o.base });
  const operator = createBoutsClient({ baseUrl: o.base, key: o.operatorKey });
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new Error(what);
  };

  const example = path.join(ROOT, "challenges", o.challenge, "submissions", "complete");
  if (!existsSync(example))
    throw new SmokeFailure(
      `no example submission at challenges/${o.challenge}/submissions/complete`,
    );

  const receiver = o.listen === null ? null : await startReceiver(o.listen);
  try {
    const challenge = await step("challenge is published", async () => {
      const c = await unwrap(
        anonymous.GET("/v1/challenges/{id}", { params: { path: { id: o.challenge } } }),
      );
      check(c.status === "published", `challenge ${o.challenge} is ${c.status}`);
      return c;
    });
    const name = `smoke-${Date.now().toString(36)}`;
    const agent = await step("agent created", async () => {
      const r = await unwrap(operator.POST("/v1/agents", { body: { name } }));
      return {
        id: r.agent.id,
        client: createBoutsClient({ baseUrl: o.base, key: r.key.key }),
      };
    });
    const secret = receiver
      ? await step("webhook endpoint registered", async () => {
          const r = await unwrap(
            agent.client.POST("/v1/webhooks", {
              body: { url: o.receiver!, eventTypes: ["submission.scored", "submission.failed"] },
            }),
          );
          check(r.secret.startsWith("whsec_"), "the endpoint's secret is not a whsec_ secret");
          return r.secret;
        })
      : null;
    await step("challenge entered", () =>
      unwrap(
        agent.client.POST("/v1/challenges/{id}/entries", {
          params: { path: { id: challenge.id } },
        }),
      ),
    );
    const submission = await step("complete example submitted", async () => {
      const r = await submit(agent.client, challenge.id, { archive: packDirectory(example) });
      return r.submission.id;
    });
    await step("scored", async () => {
      for (;;) {
        const s = await unwrap(
          agent.client.GET("/v1/submissions/{id}", { params: { path: { id: submission } } }),
        );
        if (s.status === "scored") return;
        if (s.status === "failed") throw new Error(`failed: ${s.failureReason}`);
        if (Date.now() > deadline) throw new Error(`still ${s.status} at the deadline`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    });
    log(`smoke_scoring_ms: ${Date.now() - started}`);
    const breakdownOf = (client: BoutsClient) =>
      unwrap(
        client.GET("/v1/submissions/{id}/breakdown", { params: { path: { id: submission } } }),
      );
    const owner = await step("breakdown (owner view)", async () => {
      const b = await breakdownOf(agent.client);
      check(b.view === "owner", `view is ${b.view}`);
      const weights = b.breakdown.components.reduce((s, c) => s + c.weight, 0);
      check(weights === 100, `component weights sum to ${weights}`);
      check(
        b.breakdown.math.at(-1)?.includes(`→ ${b.final.rounded}`) === true,
        "the math does not end in the rounded score",
      );
      check(b.breakdown.final.rounded === b.final.rounded, "the two rounded scores disagree");
      return b;
    });
    log(`smoke_score: ${owner.final.unrounded} → ${owner.final.rounded}`);
    log(`smoke_judged_by: ${owner.breakdown.judging.panel}`);
    await step("breakdown (public view)", async () => {
      const b = await breakdownOf(anonymous);
      check(b.view === "public", `view is ${b.view}`);
      check(b.final.unrounded === owner.final.unrounded, "the public score differs");
    });
    await step("leaderboard", async () => {
      // The standing route answers for any rank; the first page must agree where it shows it.
      const standing = await unwrap(
        anonymous.GET("/v1/challenges/{id}/agents/{agentId}", {
          params: { path: { id: challenge.id, agentId: agent.id } },
        }),
      );
      check(standing.score === owner.final.rounded, `standing score ${standing.score}`);
      const board = await unwrap(
        anonymous.GET("/v1/challenges/{id}/leaderboard", {
          params: { path: { id: challenge.id }, query: { limit: 100 } },
        }),
      );
      const listed = board.entries.find((e) => e.agentId === agent.id);
      check(
        listed
          ? listed.rank === standing.rank && listed.score === standing.score
          : standing.rank > 100,
        "the board and the standing disagree",
      );
      log(`smoke_rank: ${standing.rank} of ${standing.total}`);
    });
    await step("public pages", async () => {
      for (const [url, needle] of [
        [`${o.base}/submissions/${encodeURIComponent(submission)}`, `${owner.final.rounded}`],
        [`${o.base}/challenges/${encodeURIComponent(challenge.slug)}`, challenge.title],
      ] as const) {
        const res = await fetch(url);
        const text = await res.text();
        check(res.status === 200, `${url} answered ${res.status}`);
        check(
          (res.headers.get("content-type") ?? "").startsWith("text/html"),
          `${url} is not HTML`,
        );
        check(text.includes(needle), `${url} does not show ${needle}`);
      }
    });
    if (receiver && secret)
      await step("signed webhook received", async () => {
        const verifier = new Webhook(secret);
        for (;;) {
          for (const d of receiver.deliveries) {
            const event = verifier.verify(d.body, d.headers) as {
              type: string;
              data: { submissionId: string; score: { rounded: number } };
            };
            if (event.type === "submission.scored" && event.data.submissionId === submission) {
              check(event.data.score.rounded === owner.final.rounded, "webhook score differs");
              return;
            }
          }
          if (Date.now() > deadline) throw new Error("no submission.scored delivery arrived");
          await new Promise((r) => setTimeout(r, 500));
        }
      });
    else log("smoke: skipped signed webhook (no --receiver)");
    log(`smoke_total_ms: ${Date.now() - started}`);
    log("smoke: passed");
  } finally {
    receiver?.server.close();
  }
}

if (import.meta.main) {
  const args = parseSmokeArgs(process.argv.slice(2), process.env);
  if (!args.ok) {
    console.error(`smoke: ${args.error}\n${USAGE}`);
    process.exit(2);
  }
  try {
    await runSmoke(args.value, (line) => console.log(line));
  } catch (e) {
    console.error(`smoke: FAILED ${(e as Error).message}`);
    process.exit(1);
  }
}
