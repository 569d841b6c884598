/**
 * @module contracts
 * Zod schemas for everything that crosses a boundary, and the one lenient JSON-text parse that
 * feeds them: among them every shape that crosses between the roles (queue messages, webhook
 * events, the board's RPC interface, operator request bodies). Depends on zod and the pure
 * engines (`@bouts/scoring`, `@bouts/ranking`, for their vocabularies; `@bouts/result`'s type)
 * only.
 */
export * from "./findings.ts";
export * from "./evidence.ts";
export * from "./scan-report.ts";
export * from "./breakdown-details.ts";
export * from "./scoring.ts";
export * from "./stored-breakdown.ts";
export * from "./run-report.ts";
export * from "./challenge-bundle.ts";
export * from "./generation.ts";
export * from "./qa-report.ts";
export * from "./problem.ts";
export * from "./json.ts";
export * from "./cost.ts";
export * from "./webhook-events.ts";
export * from "./queues.ts";
export * from "./board.ts";
export * from "./operator.ts";
export * from "./text.ts";
export * from "./gateway-metadata.ts";
