/**
 * @module judges/workers-ai
 * Adapter for the Workers AI binding (`env.AI`), with JSON mode. The binding is typed
 * structurally so this package needs no Cloudflare types.
 */
import { createModelJudge, type Judge, type ModelJudgeOptions } from "./judge.ts";
import { verdictJsonSchema } from "./verdict.ts";

/** The part of the Workers AI binding the judge uses. */
export interface AiBinding {
  run(
    model: string,
    input: Record<string, unknown>,
    options?: Record<string, unknown>,
  ): Promise<unknown>;
}

export interface WorkersAiJudgeOptions extends ModelJudgeOptions {
  ai: AiBinding;
  /** A model that supports JSON mode, e.g. @cf/meta/llama-3.3-70b-instruct-fp8-fast. */
  model: string;
}

/** Creates a judge backed by the Workers AI binding. */
export function createWorkersAiJudge(options: WorkersAiJudgeOptions): Judge {
  const id = `workers-ai:${options.model}`;
  return createModelJudge(
    id,
    async (messages, task, signal) => {
      const run = options.ai.run(options.model, {
        messages,
        temperature: 0,
        response_format: { type: "json_schema", json_schema: verdictJsonSchema(task.kind) },
      });
      const aborted = new Promise<never>((_, reject) => {
        signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
      });
      let out: unknown;
      try {
        out = await Promise.race([run, aborted]);
      } catch (e) {
        const message = (e as Error).message;
        if (signal.aborted) throw e;
        // "JSON Mode couldn't be met" and capacity errors are worth another attempt.
        return {
          ok: false,
          retryable: true,
          error: { reason: "malformed", judge: id, detail: message.slice(0, 300) },
        };
      }
      const response = (out as { response?: unknown } | null)?.response;
      return { ok: true, raw: response ?? out };
    },
    options,
  );
}
