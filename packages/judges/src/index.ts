/**
 * @module judges
 * Judges for code quality, deliverables and agent-run components: one interface, real
 * adapters (OpenAI-compatible HTTP, the Workers AI binding) and a deterministic offline
 * panel. Submitted text is always data, never instructions. Runs on Workers and Node alike.
 */
export * from "./task.ts";
export { findInjectionLines, stripInjectionLines } from "./injection.ts";
export { buildMessages, createNonce, PROMPT_CHAR_BUDGET, type ChatMessage } from "./prompt.ts";
export { parseVerdict, verdictJsonSchema, type Verdict } from "./verdict.ts";
export {
  createModelJudge,
  type Judge,
  type JudgeError,
  type JudgeResult,
  type ModelJudgeOptions,
} from "./judge.ts";
export {
  createOpenAiChat,
  createWorkersAiChat,
  type ChatAnswer,
  type ChatClient,
  type ChatFailure,
  type ChatJsonSchema,
  type OpenAiChatOptions,
  type WorkersAiChatOptions,
} from "./chat.ts";
export { createOpenAiJudge, type OpenAiJudgeOptions } from "./openai.ts";
export { createWorkersAiJudge, type AiBinding, type WorkersAiJudgeOptions } from "./workers-ai.ts";
export { measureCode, isSourcePath, type CodeMetrics } from "./analysis/index.ts";
export { stripComments } from "./source-text.ts";
export {
  classifyDeliverable,
  computeCodePenalties,
  createOfflineJudge,
  createOfflinePanel,
  measureDeliverable,
  OFFLINE_LENSES,
} from "./offline.ts";
export {
  computeTraceLosses,
  createOfflineTraceJudge,
  createOfflineTracePanel,
  OFFLINE_TRACE_LENSES,
  scoreTraceFacts,
  type TraceLoss,
} from "./offline-trace.ts";
export {
  runPanel,
  toCodeQualityInput,
  toDeliverableInput,
  toScoreInput,
  type PanelOutcome,
} from "./panel.ts";
