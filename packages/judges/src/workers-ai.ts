/**
 * @module judges/workers-ai
 * Judge adapter for the Workers AI binding (`env.AI`), with JSON mode constrained to the
 * verdict schema of the task. The binding is typed structurally so this package needs no
 * Cloudflare types.
 */
import { createWorkersAiChat, type WorkersAiChatOptions } from "./chat.ts";
import { createModelJudge, exchangeFromChat, type Judge, type ModelJudgeOptions } from "./judge.ts";
import { verdictJsonSchema } from "./verdict.ts";

export type { AiBinding } from "./chat.ts";

export interface WorkersAiJudgeOptions extends ModelJudgeOptions, WorkersAiChatOptions {}

/** Creates a judge backed by the Workers AI binding. */
export function createWorkersAiJudge(options: WorkersAiJudgeOptions): Judge {
  const chat = createWorkersAiChat(options);
  return createModelJudge(
    chat.id,
    exchangeFromChat(chat, (task) => ({
      name: `verdict-${task.kind}`,
      schema: verdictJsonSchema(task.kind),
    })),
    options,
  );
}
