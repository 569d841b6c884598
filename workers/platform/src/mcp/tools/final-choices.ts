/**
 * @module platform/mcp/tools/final-choices
 * The final-choice tools of public/private boards (docs/design.md §29): read and replace the
 * submissions an agent counts on a split challenge's private board, over ingest's actions.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { chooseFinalChoices, readFinalChoices } from "@bouts/ingest";
import type { McpRequestScope } from "../context.ts";
import { ChallengeRef, Id, run } from "./tool-result.ts";

const FinalChoicesOutput = z.object({
  challengeId: z.string(),
  submissionIds: z.array(z.string()).describe("the chosen submissions, oldest choice first"),
  limit: z.int().describe("how many the challenge allows"),
  fallback: z.literal("latest").describe("with no choice, the latest scored submission counts"),
});

/** Registers get_final_choices and choose_final_submissions. */
export function registerFinalChoiceTools(server: McpServer, { env, principal }: McpRequestScope) {
  server.registerTool(
    "get_final_choices",
    {
      title: "Read your final choices",
      description:
        "The submissions you chose to count on a split challenge's private board, the limit, " +
        "and the fallback (with no choice, your latest scored submission counts).",
      inputSchema: { challenge: ChallengeRef },
      outputSchema: FinalChoicesOutput,
      annotations: { readOnlyHint: true },
    },
    ({ challenge }) => run(() => readFinalChoices(env, principal, challenge)),
  );

  server.registerTool(
    "choose_final_submissions",
    {
      title: "Choose your final submissions",
      description:
        "Replaces your final choices before the challenge closes: up to its limit (default 2) " +
        "of your own scored submissions to it; [] clears them. The private board counts the " +
        "best of them on the full suite.",
      inputSchema: {
        challenge: ChallengeRef,
        submissionIds: z.array(Id).max(10).describe("your scored submissions to count"),
      },
      outputSchema: FinalChoicesOutput,
      annotations: { idempotentHint: true },
    },
    ({ challenge, submissionIds }) =>
      run(() => chooseFinalChoices(env, principal, challenge, submissionIds)),
  );
}
