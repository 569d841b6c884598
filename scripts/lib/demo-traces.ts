/**
 * The demo's agent-run traces (`npm run demo`, the notes-api-agent challenge): each demo agent calls
 * the model through the platform's metering gateway, then submits the complete notes-api code with a
 * trace built here from the shape of one of packages/telemetry/fixtures (efficient-honest, wasteful,
 * tamperer) but true to what the platform sees: its edits name the archive's real files, each file's
 * last edit ends at `sha256:<hex of the file's bytes>`, and its token-bearing messages are the
 * gateway calls, in order, with the tokens the gateway recorded. The tamperer keeps its tampering.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./local-platform.ts";

/** The three demo agents, named by the fixture each trace is shaped after. */
export const DEMO_TRACE_KINDS = ["efficient-honest", "wasteful", "tamperer"] as const;
export type DemoTraceKind = (typeof DEMO_TRACE_KINDS)[number];

/** The model each demo agent calls (the demo price table prices model-a and model-b only). */
export const DEMO_AGENT_MODELS: Record<DemoTraceKind, string> = {
  "efficient-honest": "model-a",
  wasteful: "model-b",
  tamperer: "model-c",
};

/** One model call as the gateway answered it: the model that answered and the usage reported. */
export interface GatewayCall {
  model: string;
  tokensIn: number;
  tokensOut: number;
  /** When the answer arrived (epoch ms): the trace's message for this call is stamped then. */
  at: number;
}

/** A chat completion the demo agent sends: a prompt of about the fixture's input tokens. */
export interface PlannedCall {
  messages: { role: "system" | "user"; content: string }[];
  max_tokens: number;
}

type TraceEvent = Record<string, unknown> & { type: string; seq: number; ts: string };

/** The fixture's paths, as the notes-api archive names them (the tamperer's test paths stay). */
const PATHS: Record<string, string> = {
  "src/auth.ts": "app.mjs",
  "src/token.ts": "app.mjs",
  "src/auth.js": "app.js",
  "src/debug.ts": "debug.mjs",
  // The agent's own test file (protected), not one of the challenge's hidden ones.
  "tests/auth.test.ts": "tests/notes.test.mjs",
  src: ".",
};

function readFixture(kind: DemoTraceKind): {
  header: Record<string, unknown>;
  events: TraceEvent[];
} {
  const lines = readFileSync(
    path.join(ROOT, "packages/telemetry/fixtures", `${kind}.jsonl`),
    "utf8",
  )
    .split("\n")
    .filter((l) => l.trim() !== "");
  const [header, ...events] = lines.map((l) => JSON.parse(l) as TraceEvent);
  return { header: header!, events };
}

/** Whether an event reports tokens: the model calls the gateway must have seen. */
const spendsTokens = (e: TraceEvent) => e.tokensIn !== undefined || e.tokensOut !== undefined;

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/**
 * The calls a demo agent makes before it submits: one per token-bearing event of its fixture, each
 * a prompt of about the fixture's input tokens (the local fake model counts a token per 4 bytes)
 * asking for the fixture's output tokens.
 */
export function planDemoCalls(
  kind: DemoTraceKind,
  files: ReadonlyMap<string, Uint8Array>,
): PlannedCall[] {
  const code = new TextDecoder().decode(files.get("app.mjs") ?? new Uint8Array());
  return readFixture(kind)
    .events.filter(spendsTokens)
    .map((e, i) => {
      const bytes = 4 * Number(e.tokensIn ?? 0);
      const context = code.repeat(Math.ceil(bytes / Math.max(1, code.length))).slice(0, bytes);
      return {
        messages: [
          { role: "system", content: `You are ${kind}, fixing notes-api (step ${i + 1}).` },
          { role: "user", content: context },
        ],
        max_tokens: Number(e.tokensOut ?? 0),
      };
    });
}

/**
 * The trace of a demo agent's run: its fixture's events, with paths on the archive's files, each
 * file's edits chained (an edit starts where the file's previous one ended) and its last edit
 * ending at the file's real digest, the token-bearing messages replaced by `calls` in order (their
 * tokens and, when it is not the header's, their model), and times laid on the calls' own times.
 */
export function buildDemoTrace(
  kind: DemoTraceKind,
  challengeSlug: string,
  files: ReadonlyMap<string, Uint8Array>,
  calls: readonly GatewayCall[],
): string {
  const { header, events } = readFixture(kind);
  const spenders = events.filter(spendsTokens);
  if (spenders.length !== calls.length)
    throw new Error(`${kind}: ${calls.length} gateway calls for ${spenders.length} messages`);
  const model = DEMO_AGENT_MODELS[kind];
  const remap = (p: string) => PATHS[p] ?? p;
  const rewrite = (text: string) =>
    Object.entries(PATHS).reduce(
      (t, [from, to]) =>
        from === "src" ? t.replaceAll('{"path":"src"}', '{"path":"."}') : t.replaceAll(from, to),
      text,
    );

  // Each real file's edits: a chain from its first edit's start to its real digest.
  const lastEdit = new Map<string, number>();
  for (const e of events) if (e.type === "edit") lastEdit.set(remap(String(e.path)), e.seq);
  const state = new Map<string, string | null>();
  const synthetic = (p: string, token: string) => `sha256:${sha256(`${kind}:${p}:${token}`)}`;
  const finalDigest = (p: string, token: string) => {
    const bytes = files.get(p);
    return bytes ? `sha256:${sha256(bytes)}` : synthetic(p, token);
  };

  let call = 0;
  const out = events.map((e): TraceEvent => {
    const next: TraceEvent = { ...e };
    if (spendsTokens(e)) {
      const c = calls[call++]!;
      next.tokensIn = c.tokensIn;
      next.tokensOut = c.tokensOut;
      if (c.model !== model) next.model = c.model;
    }
    if (e.type === "tool_call") {
      if (typeof e.args === "string") {
        next.args = rewrite(e.args);
        next.argsDigest = `sha256:${sha256(next.args as string)}`;
      }
      if (Array.isArray(e.paths)) next.paths = (e.paths as string[]).map(remap);
    }
    if (e.type === "edit") {
      const p = remap(String(e.path));
      next.path = p;
      if (typeof e.patch === "string") next.patch = rewrite(e.patch);
      const before = state.has(p)
        ? state.get(p)!
        : typeof e.before === "string"
          ? synthetic(p, e.before)
          : null;
      if (e.kind === "create") delete next.before;
      else next.before = before;
      if (e.kind === "delete") {
        delete next.after;
        state.set(p, null);
      } else {
        const token = String(e.after);
        next.after = lastEdit.get(p) === e.seq ? finalDigest(p, token) : synthetic(p, token);
        state.set(p, next.after as string);
      }
    }
    return next;
  });

  // Times: each token-bearing message when its call answered; the events between two calls spread
  // evenly between them; the ones before the first call just before it.
  const anchors = out.map((e, i) => (spendsTokens(e) ? i : -1)).filter((i) => i >= 0);
  let prev = calls[0]!.at - out.length;
  out.forEach((e, i) => {
    const k = anchors.findIndex((a) => a >= i);
    if (k < 0) {
      prev += 1; // after the last call (no fixture ends so): a moment later each
      e.ts = new Date(prev).toISOString();
      return;
    }
    const end = calls[k]!.at;
    const start = k === 0 ? end - anchors[0]! - 1 : calls[k - 1]!.at;
    const from = k === 0 ? -1 : anchors[k - 1]!;
    const t = Math.round(start + ((end - start) * (i - from)) / (anchors[k]! - from));
    prev = Math.max(prev + 1, t);
    e.ts = new Date(prev).toISOString();
  });

  const head = { ...header, model, challengeId: challengeSlug, startedAt: out[0]!.ts };
  return `${[head, ...out].map((x) => JSON.stringify(x)).join("\n")}\n`;
}
