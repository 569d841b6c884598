/**
 * @module judges/judge
 * The one judge interface, and the retry loop shared by every model adapter: bounded time
 * per attempt, malformed answers retried, each failure a typed value.
 */
import type { Result } from "@bouts/result";
import type { ChatClient, ChatJsonSchema } from "./chat.ts";
import { findInjectionLines } from "./injection.ts";
import { buildMessages, createNonce, type ChatMessage } from "./prompt.ts";
import type { JudgeProvenance, JudgeTask, Judgement } from "./task.ts";
import { parseVerdict, type Verdict } from "./verdict.ts";

/** Why a judge gave no judgement. */
export type JudgeError =
  | { reason: "timeout"; judge: string; detail: string }
  | { reason: "http"; judge: string; status: number; detail: string }
  | { reason: "network"; judge: string; detail: string }
  | { reason: "malformed"; judge: string; detail: string }
  | { reason: "unsupported"; judge: string; detail: string };

export type JudgeResult = Result<Judgement, JudgeError>;

/** A judge: a model behind an adapter, or the offline analyzer. */
export interface Judge {
  readonly id: string;
  readonly source: "model" | "offline";
  judge(task: JudgeTask, signal?: AbortSignal): Promise<JudgeResult>;
}

/** Options every model adapter shares. */
export interface ModelJudgeOptions {
  /** Per-attempt time limit. */
  timeoutMs?: number;
  /** Attempts when the answer is malformed or the provider fails transiently. */
  maxAttempts?: number;
  /** Nonce source, for deterministic tests. */
  nonce?: () => string;
}

/** One round trip to a provider: the raw answer text/object, or a failure. */
export type Exchange = (
  messages: ChatMessage[],
  task: JudgeTask,
  signal: AbortSignal,
) => Promise<{ ok: true; raw: unknown } | { ok: false; error: JudgeError; retryable: boolean }>;

/** Adapts a chat client to the judge exchange, optionally constraining answers per task. */
export function exchangeFromChat(
  chat: ChatClient,
  schemaFor?: (task: JudgeTask) => ChatJsonSchema,
): Exchange {
  return async (messages, task, signal) => {
    const answer = await chat.complete(messages, signal, schemaFor?.(task));
    if (answer.ok) return answer;
    return {
      ok: false,
      retryable: answer.retryable,
      error: { ...answer.error, judge: chat.id },
    };
  };
}

/** Text of a task that came from the submission, for the injection pre-scan. */
export function submittedText(task: JudgeTask): string {
  if (task.kind === "code-quality") return task.files.map((f) => f.content).join("\n");
  if (task.kind === "deliverable")
    return [task.deliverable.content, ...task.files.map((f) => f.content)].join("\n");
  return task.traceSummary;
}

/** Builds a model judge from one provider exchange. */
export function createModelJudge(
  id: string,
  exchange: Exchange,
  options: ModelJudgeOptions = {},
): Judge {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  return {
    id,
    source: "model",
    async judge(task, signal) {
      const messages = buildMessages(task, (options.nonce ?? createNonce)());
      const preScan = findInjectionLines(submittedText(task)).length > 0;
      let last: JudgeError = { reason: "malformed", judge: id, detail: "no attempt made" };
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        const timer = AbortSignal.timeout(timeoutMs);
        const combined = signal ? AbortSignal.any([signal, timer]) : timer;
        let answer: Awaited<ReturnType<Exchange>>;
        try {
          answer = await exchange(messages, task, combined);
        } catch (e) {
          answer = timer.aborted
            ? {
                ok: false,
                error: { reason: "timeout", judge: id, detail: `no answer within ${timeoutMs} ms` },
                retryable: true,
              }
            : {
                ok: false,
                error: { reason: "network", judge: id, detail: (e as Error).message },
                retryable: true,
              };
        }
        if (signal?.aborted)
          return { ok: false, error: { reason: "timeout", judge: id, detail: "cancelled" } };
        if (!answer.ok) {
          last = answer.error;
          if (!answer.retryable) break;
          continue;
        }
        const verdict = parseVerdict(task.kind, answer.raw);
        if (verdict.ok)
          return { ok: true, value: toJudgement(id, "model", task, verdict.value, preScan) };
        last = { reason: "malformed", judge: id, detail: verdict.detail };
        messages.push({
          role: "user",
          content: `Your previous answer was not valid: ${verdict.detail.slice(0, 300)}. Answer with the JSON object only.`,
        });
      }
      return { ok: false, error: last };
    },
  };
}

/** A model judge's provenance from its id ("openai:<model>", "workers-ai:<model>"). */
export function resolveModelProvenance(id: string): JudgeProvenance {
  const at = id.indexOf(":");
  return at < 0
    ? { kind: "model", provider: "unknown", model: id }
    : { kind: "model", provider: id.slice(0, at), model: id.slice(at + 1) };
}

/** Assembles a Judgement from a validated verdict. */
export function toJudgement(
  judge: string,
  source: "model" | "offline",
  task: JudgeTask,
  v: Verdict,
  preScan: boolean,
): Judgement {
  return {
    judge,
    source,
    task: task.kind,
    provenance: resolveModelProvenance(judge),
    deductions: [],
    dimensions: v.dimensions,
    score: v.score,
    rationale: v.rationale,
    injectionSuspected: v.injectionDetected || preScan,
  };
}
