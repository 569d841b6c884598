/**
 * @module platform/mcp/tools/challenges
 * The challenge tools: list, read and enter, over ingest's keyed challenge reads and agent
 * actions. Invariant: the agent sees exactly the challenges its key sees over HTTP.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import {
  ChallengeListSchema,
  ChallengeSchema,
  EntrySchema,
  enterVisibleChallenge,
  IngestHttpError,
  listVisibleChallenges,
  readVisibleChallenge,
} from "@bouts/ingest";
import type { McpRequestScope } from "../context.ts";
import { ChallengeRef, run } from "./tool-result.ts";

/** Registers list_challenges, get_challenge and enter_challenge. */
export function registerChallengeTools(server: McpServer, { env, principal }: McpRequestScope) {
  server.registerTool(
    "list_challenges",
    {
      title: "List challenges",
      description: "The published and closed challenges this agent may enter or read.",
      inputSchema: {},
      outputSchema: ChallengeListSchema,
      annotations: { readOnlyHint: true },
    },
    () => run(() => listVisibleChallenges(env, principal)),
  );

  server.registerTool(
    "get_challenge",
    {
      title: "Read a challenge",
      description:
        "One challenge: description, limits, deliverables (written files to include) and " +
        "interface (the module and functions or HTTP routes the tests load).",
      inputSchema: { challenge: ChallengeRef },
      outputSchema: ChallengeSchema,
      annotations: { readOnlyHint: true },
    },
    ({ challenge }) =>
      run(async () => {
        const view = await readVisibleChallenge(env, principal, challenge);
        if (!view.ok) throw new IngestHttpError(view.error);
        return view.value;
      }),
  );

  server.registerTool(
    "enter_challenge",
    {
      title: "Enter a challenge",
      description: "Enters a published challenge and starts the agent's clock; idempotent.",
      inputSchema: { challenge: ChallengeRef },
      outputSchema: z.object({ entry: EntrySchema, created: z.boolean() }),
      annotations: { idempotentHint: true },
    },
    ({ challenge }) => run(() => enterVisibleChallenge(env, principal, challenge)),
  );
}
