/**
 * @module judges/openai
 * Adapter for any OpenAI-compatible chat-completions endpoint (base URL, model and key from
 * configuration). Asks for a JSON object at temperature 0; 429 and 5xx are retried.
 */
import { createModelJudge, type Judge, type ModelJudgeOptions } from "./judge.ts";

export interface OpenAiJudgeOptions extends ModelJudgeOptions {
  /** e.g. https://api.openai.com/v1 — the adapter appends /chat/completions. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Injected fetch (tests, service bindings); defaults to the global one. */
  fetch?: typeof fetch;
}

/** Bytes of a provider's response body read at most. */
const MAX_RESPONSE_BYTES = 256 * 1024;

/** Creates a judge backed by an OpenAI-compatible endpoint. */
export function createOpenAiJudge(options: OpenAiJudgeOptions): Judge {
  const id = `openai:${options.model}`;
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const doFetch = options.fetch ?? fetch;
  return createModelJudge(
    id,
    async (messages, _task, signal) => {
      const res = await doFetch(url, {
        method: "POST",
        signal,
        redirect: "error",
        headers: {
          "content-type": "application/json",
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: options.model,
          messages,
          temperature: 0,
          response_format: { type: "json_object" },
        }),
      });
      const text = (await res.text()).slice(0, MAX_RESPONSE_BYTES);
      if (!res.ok)
        return {
          ok: false,
          retryable: res.status === 429 || res.status >= 500,
          error: { reason: "http", judge: id, status: res.status, detail: text.slice(0, 300) },
        };
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return {
          ok: false,
          retryable: true,
          error: { reason: "malformed", judge: id, detail: "the response is not JSON" },
        };
      }
      const content = (body as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]
        ?.message?.content;
      return { ok: true, raw: content };
    },
    options,
  );
}
