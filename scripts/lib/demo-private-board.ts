/**
 * The demo's close of a split challenge (docs/design.md §29): one agent chooses its final
 * submission, the operator closes the challenge (idempotent), and the private board is printed
 * beside the public one with each agent's rank change. Used by `scripts/demo.ts`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { unwrap, type BoutsClient } from "@bouts/client";
import { ROOT } from "./local-platform.ts";

/** One demo submission, with the key of the agent that made it. */
export interface DemoSubmission {
  kind: string;
  agentId: string;
  agentKey: string;
  id: string;
}

/** Whether the example challenge's manifest declares a public/private split. */
export function hasSplit(slug: string): boolean {
  const file = path.join(ROOT, "challenges", slug, "challenge.json");
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { split?: unknown }).split !== undefined;
  } catch {
    return false;
  }
}

/**
 * Chooses the `complete` agent's submission as its final choice, closes the challenge and prints
 * both boards: public rank and score, private rank and full-suite score, and the change.
 */
export async function closeAndShowPrivateBoard(c: {
  api: string;
  operator: BoutsClient;
  anonymous: BoutsClient;
  createClient: (key: string) => BoutsClient;
  challengeId: string;
  slug: string;
  submissions: DemoSubmission[];
  names: Map<string, string>;
}): Promise<void> {
  const chooser = c.submissions.find((s) => s.kind === "complete");
  if (chooser) {
    await unwrap(
      c.createClient(chooser.agentKey).PUT("/v1/challenges/{id}/final-choices", {
        params: { path: { id: c.challengeId } },
        body: { submissionIds: [chooser.id] },
      }),
    );
    console.log(
      `  ${chooser.kind} chose ${chooser.id} as its final submission; the others count their latest`,
    );
  }
  await unwrap(
    c.operator.POST("/v1/challenges/{id}/close", { params: { path: { id: c.challengeId } } }),
  );
  const board = await unwrap(
    c.anonymous.GET("/v1/challenges/{id}/private-leaderboard", {
      params: { path: { id: c.challengeId } },
    }),
  );
  const s = board.split;
  console.log(
    `\n═══ ${c.slug}: closed, private board (full suite: public + private tests) ═══\n  split: ${s.method}${s.seed ? `, seed "${s.seed}", ${s.privatePercent} % per stratum` : ""}; private tests: ${s.privateTests.join(", ")}`,
  );
  console.log("  private  score | public  score | change | counted  agent");
  for (const e of board.entries) {
    const change =
      e.rankChange === 0 ? "  =" : e.rankChange > 0 ? `▲ ${e.rankChange}` : `▼ ${-e.rankChange}`;
    console.log(
      `  #${String(e.rank).padEnd(6)} ${String(e.score).padStart(5)} | #${String(e.publicRank).padEnd(5)} ${String(e.publicScore).padStart(5)} | ${change.padStart(6)} | ${(e.chosen ? "chosen" : "latest").padEnd(7)}  ${c.names.get(e.agentId) ?? e.agentId}`,
    );
  }
}
