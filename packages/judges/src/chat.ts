/**
 * @module judges/chat
 * Provider round trips shared by everything that asks a model for JSON: the judges and the
 * model-backed adversarial test generator. One call is one attempt; retries, prompts and the
 * validation of the answer belong to the caller. Invariants: a provider's body is read up to a
 * fixed size; redirects are not followed and count as failures (`redirect: "manual"`: Workers
 * reject `"error"`); 429 and 5xx are retryable, other HTTP failures are not.
 */
import type { ChatMessage } from "./prompt.ts";

/** Why one attempt produced no answer. */
export type ChatFailure =
  { reason: "http"; status: number; detail: string } | { reason: "malformed"; detail: string };

/** One attempt's outcome: the raw answer (text or object), or a failure. */
export type ChatAnswer =
  { ok: true; raw: unknown } | { ok: false; retryable: boolean; error: ChatFailure };

/** A JSON schema the provider should constrain its answer to, where it supports that. */
export interface ChatJsonSchema {
  name: string;
  schema: Record<string, unknown>;
}

/** A model endpoint asked for one JSON object per call. */
export interface ChatClient {
  /** e.g. "openai:gpt-4o-mini" or "workers-ai:@cf/…". */
  readonly id: string;
  /** The model's name as the provider knows it. */
  readonly model: string;
  complete(
    messages: ChatMessage[],
    signal: AbortSignal,
    schema?: ChatJsonSchema,
  ): Promise<ChatAnswer>;
}

/** Options of an OpenAI-compatible chat-completions endpoint. */
export interface OpenAiChatOptions {
  /** e.g. https://api.openai.com/v1 — the client appends /chat/completions. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Injected fetch (tests, service bindings); defaults to the global one. */
  fetch?: typeof fetch;
}

/** Bytes of a provider's response body read at most. */
const MAX_RESPONSE_BYTES = 256 * 1024;

/** A client for any OpenAI-compatible chat-completions endpoint, JSON mode, temperature 0. */
export function createOpenAiChat(options: OpenAiChatOptions): ChatClient {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const doFetch = options.fetch ?? fetch;
  return {
    id: `openai:${options.model}`,
    model: options.model,
    async complete(messages, signal) {
      const res = await doFetch(url, {
        method: "POST",
        signal,
        redirect: "manual",
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
          error: { reason: "http", status: res.status, detail: text.slice(0, 300) },
        };
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return {
          ok: false,
          retryable: true,
          error: { reason: "malformed", detail: "the response is not JSON" },
        };
      }
      const content = (body as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]
        ?.message?.content;
      return { ok: true, raw: content };
    },
  };
}

/** The part of the Workers AI binding the clients use. */
export interface AiBinding {
  run(
    model: string,
    input: Record<string, unknown>,
    options?: Record<string, unknown>,
  ): Promise<unknown>;
}

/** Options of the Workers AI binding client. */
export interface WorkersAiChatOptions {
  ai: AiBinding;
  /** A model that supports JSON mode, e.g. @cf/meta/llama-3.3-70b-instruct-fp8-fast. */
  model: string;
}

/** A client for the Workers AI binding, JSON mode (with the caller's schema), temperature 0. */
export function createWorkersAiChat(options: WorkersAiChatOptions): ChatClient {
  return {
    id: `workers-ai:${options.model}`,
    model: options.model,
    async complete(messages, signal, schema) {
      const run = options.ai.run(options.model, {
        messages,
        temperature: 0,
        response_format: schema
          ? { type: "json_schema", json_schema: schema.schema }
          : { type: "json_object" },
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
          error: { reason: "malformed", detail: message.slice(0, 300) },
        };
      }
      const response = (out as { response?: unknown } | null)?.response;
      return { ok: true, raw: response ?? out };
    },
  };
}
