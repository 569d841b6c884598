/**
 * @module judges/openai
 * Judge adapter for any OpenAI-compatible chat-completions endpoint (base URL, model and key
 * from configuration): the shared chat client (JSON mode, temperature 0) behind the judge
 * retry loop; 429 and 5xx are retried.
 */
import { createOpenAiChat, type OpenAiChatOptions } from "./chat.ts";
import { createModelJudge, exchangeFromChat, type Judge, type ModelJudgeOptions } from "./judge.ts";

export interface OpenAiJudgeOptions extends ModelJudgeOptions, OpenAiChatOptions {}

/** Creates a judge backed by an OpenAI-compatible endpoint. */
export function createOpenAiJudge(options: OpenAiJudgeOptions): Judge {
  const chat = createOpenAiChat(options);
  return createModelJudge(chat.id, exchangeFromChat(chat), options);
}
