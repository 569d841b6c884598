/**
 * @module contracts
 * Zod schemas for everything that crosses a boundary. Depends on zod only.
 */
export * from "./findings.ts";
export * from "./evidence.ts";
export * from "./scan-report.ts";
export * from "./scoring.ts";
export * from "./run-report.ts";
export * from "./challenge-bundle.ts";
export * from "./generation.ts";
export * from "./problem.ts";
