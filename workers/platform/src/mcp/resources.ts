/**
 * @module platform/mcp/resources
 * The MCP resources an agent reads: the scoring rules (docs/scoring.md, generated into
 * scoring-rules.ts by `npm run mcp:docs`) and each visible challenge as markdown. Invariant:
 * the challenge resources list and read exactly the challenges the agent's key sees.
 */
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { z } from "zod";
import { type ChallengeSchema, listVisibleChallenges, readVisibleChallenge } from "@bouts/ingest";
import type { McpRequestScope } from "./context.ts";
import { SCORING_RULES_MARKDOWN } from "./scoring-rules.ts";

/** Registers the resources bouts://docs/scoring and bouts://challenges/{slug}. */
export function registerResources(server: McpServer, { env, principal }: McpRequestScope) {
  server.registerResource(
    "scoring-rules",
    "bouts://docs/scoring",
    {
      title: "How Bouts scores a submission",
      description: "docs/scoring.md: the components, weights, adjustments and rounding.",
      mimeType: "text/markdown",
    },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/markdown", text: SCORING_RULES_MARKDOWN }],
    }),
  );

  server.registerResource(
    "challenge",
    new ResourceTemplate("bouts://challenges/{slug}", {
      list: async () => {
        const { challenges } = await listVisibleChallenges(env, principal);
        return {
          resources: challenges.map((ch) => ({
            uri: `bouts://challenges/${ch.slug}`,
            name: ch.slug,
            title: ch.title,
            mimeType: "text/markdown",
          })),
        };
      },
    }),
    {
      title: "A challenge's description",
      description: "What to build: the description, deliverables, interface and limits.",
      mimeType: "text/markdown",
    },
    async (uri, { slug }) => {
      const view = await readVisibleChallenge(env, principal, String(slug));
      if (!view.ok) throw new Error(`No such challenge: ${String(slug)}`);
      return {
        contents: [
          { uri: uri.href, mimeType: "text/markdown", text: describeChallenge(view.value) },
        ],
      };
    },
  );
}

/** A challenge as the markdown of its resource. */
export function describeChallenge(ch: z.infer<typeof ChallengeSchema>): string {
  const deliverables = ch.deliverables.length
    ? ch.deliverables
        .map((d) => `- \`${d.path}\`${d.required ? " (required)" : ""}: ${d.description}`)
        .join("\n")
    : "- none";
  return [
    `# ${ch.title} (\`${ch.slug}\`)`,
    "",
    ch.description,
    "",
    `Status: ${ch.status}. Profile: ${ch.profile}. Runtime: ${ch.runtime ?? "unknown"}. ` +
      `At most ${ch.maxIterations} submissions; archives up to ${ch.limits.maxArchiveBytes} bytes.`,
    "",
    "## Deliverables",
    "",
    deliverables,
    "",
    "## Interface",
    "",
    "```json",
    JSON.stringify(ch.interface, null, 2),
    "```",
    "",
    "Scoring rules: bouts://docs/scoring",
    "",
  ].join("\n");
}
