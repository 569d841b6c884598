/**
 * @module gateway-worker/usage
 * Reading what an upstream says it spent: `usage.prompt_tokens` / `completion_tokens` of a chat
 * completion, and the model that answered, from a JSON answer or from a stream of server-sent
 * events read on its way to the client. Invariants: a token count is taken only when both are
 * non-negative safe integers, never coerced ("12", -1 or 2.5 are no usage); a stream passes
 * through byte for byte; the tap holds at most one line of `MAX_SSE_LINE` characters.
 */

/** The tokens of one call, as the upstream reported them. */
export interface CallUsage {
  tokensIn: number;
  tokensOut: number;
}

/** The longest model name recorded (longer names are not taken from the answer). */
export const MAX_MODEL_NAME = 256;
/** The longest server-sent-event line the tap reads; a longer one is skipped. */
export const MAX_SSE_LINE = 64 * 1024;

const isCount = (v: unknown): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** The usage of an OpenAI `usage` object, or null unless both counts are non-negative safe integers. */
export function readUsage(usage: unknown): CallUsage | null {
  if (typeof usage !== "object" || usage === null) return null;
  const { prompt_tokens: tokensIn, completion_tokens: tokensOut } = usage as Record<
    string,
    unknown
  >;
  return isCount(tokensIn) && isCount(tokensOut) ? { tokensIn, tokensOut } : null;
}

/** A model name as an answer gives it, or null when it is not a usable string. */
export function readModelName(model: unknown): string | null {
  return typeof model === "string" && model.length > 0 && model.length <= MAX_MODEL_NAME
    ? model
    : null;
}

/** What a JSON chat completion says of itself: its usage and the model that answered. */
export function readCompletion(bytes: Uint8Array): {
  usage: CallUsage | null;
  model: string | null;
} {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { usage: null, model: null };
  }
  if (typeof body !== "object" || body === null) return { usage: null, model: null };
  const { usage, model } = body as Record<string, unknown>;
  return { usage: readUsage(usage), model: readModelName(model) };
}

/** A pass-through stream that reads an SSE chat completion's model and final usage. */
export interface UsageTap {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
  /** What the events read so far said: the first model named, the last usage reported. */
  seen(): { usage: CallUsage | null; model: string | null };
}

/**
 * A TransformStream that passes every chunk on unchanged and reads its `data:` events: the first
 * `model`, and the last non-null `usage` (OpenAI sends it in the final chunk when
 * `stream_options.include_usage` is set). A usage that is not well-typed counts as none.
 */
export function createUsageTap(): UsageTap {
  const decoder = new TextDecoder();
  let line = "";
  let skipping = false;
  let model: string | null = null;
  let usage: CallUsage | null = null;
  const readLine = (text: string) => {
    if (!text.startsWith("data:")) return;
    const payload = text.slice(5).trim();
    if (payload === "" || payload === "[DONE]") return;
    let event: unknown;
    try {
      event = JSON.parse(payload);
    } catch {
      return;
    }
    if (typeof event !== "object" || event === null) return;
    const e = event as Record<string, unknown>;
    model ??= readModelName(e["model"]);
    // `usage: null` rides on every chunk but the last; a present usage replaces the last one.
    if (e["usage"] !== null && e["usage"] !== undefined) usage = readUsage(e["usage"]);
  };
  const readText = (text: string) => {
    let at = 0;
    for (let nl = text.indexOf("\n", at); nl >= 0; nl = text.indexOf("\n", at)) {
      const piece = text.slice(at, nl);
      if (!skipping) readLine((line + piece).replace(/\r$/, ""));
      line = "";
      skipping = false;
      at = nl + 1;
    }
    if (skipping) return;
    line += text.slice(at);
    if (line.length > MAX_SSE_LINE) {
      line = "";
      skipping = true;
    }
  };
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      controller.enqueue(chunk);
      readText(decoder.decode(chunk, { stream: true }));
    },
    flush() {
      readText(`${decoder.decode()}\n`);
    },
  });
  return { readable, writable, seen: () => ({ usage, model }) };
}
