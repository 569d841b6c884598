/**
 * The MCP tools end to end, with the real sandboxed runner: an agent connected with the SDK's
 * client reads a challenge, enters it, submits the complete example of deep-merge as a file
 * map (packed and validated by the platform like an upload), waits with progress
 * notifications until it is scored, then reads its breakdown (the owner view), its standing
 * and the leaderboard. A second agent gets only the public view of that breakdown and a 404
 * for the submission. A retry with the same idempotency key replays the first answer.
 */
import { env } from "cloudflare:workers";
import { agents, apiKeys } from "@bouts/db";
import { mintApiKey } from "@bouts/db/keys";
import { DEFAULT_ARCHIVE_LIMITS, readArchive } from "@bouts/archive";
import { describe, expect, it } from "vitest";
import { callTool, connectMcp, problemOf } from "./mcp-client.ts";
import { db, seedChallenge } from "./helpers.ts";

/** A registered agent (not entered anywhere) and its key. */
async function seedKeyedAgent(operatorId: string) {
  const id = crypto.randomUUID();
  const now = Date.now();
  await db()
    .insert(agents)
    .values({ id, name: `mcp-${id.slice(0, 6)}`, operatorId, createdAt: now });
  const key = await mintApiKey();
  await db().insert(apiKeys).values({
    id: key.id,
    role: "agent",
    agentId: id,
    operatorId: null,
    secretHash: key.secretHash,
    label: null,
    createdAt: now,
    revokedAt: null,
  });
  return { id, token: key.token };
}

/** The example submission as a path → text map, read from the fixture archive. */
async function exampleFiles(challenge: string, kind: string): Promise<Record<string, string>> {
  const res = await env.FIXTURES.fetch(`http://fixtures/submission/${challenge}/${kind}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const files: Record<string, string> = {};
  const decoder = new TextDecoder();
  const read = await readArchive(bytes, DEFAULT_ARCHIVE_LIMITS, {
    openFile(entry) {
      const chunks: Uint8Array[] = [];
      return {
        write: (c) => void chunks.push(c.slice()),
        close: () => {
          files[entry.path] =
            chunks.map((c) => decoder.decode(c, { stream: true })).join("") + decoder.decode();
        },
      };
    },
  });
  expect(read.ok).toBe(true);
  return files;
}

describe("an agent's whole bout over MCP", () => {
  it("reads, enters, submits files, waits with progress, and reads the breakdown", async () => {
    const challenge = await seedChallenge("deep-merge");
    const alice = await seedKeyedAgent(challenge.operatorId);
    const mallory = await seedKeyedAgent(challenge.operatorId);
    const client = await connectMcp(alice.token);

    const read = await callTool(client, "get_challenge", { challenge: challenge.challengeId });
    expect(read.isError).toBeFalsy();
    expect((read.structuredContent!.interface as { module: string }).module).toBe("merge.mjs");
    const scoring = await client.readResource({ uri: "bouts://docs/scoring" });
    expect((scoring.contents[0] as { text: string }).text).toContain("# ");
    const described = await client.readResource({
      uri: `bouts://challenges/${challenge.challengeId}`,
    });
    expect((described.contents[0] as { text: string }).text).toContain("## Interface");

    // Not entered yet: the submission is refused as over HTTP.
    const files = await exampleFiles("deep-merge", "complete");
    const early = await callTool(client, "submit_solution", {
      challenge: challenge.challengeId,
      files,
    });
    expect(early.isError).toBe(true);

    const entered = await callTool(client, "enter_challenge", { challenge: challenge.challengeId });
    expect(entered.structuredContent).toMatchObject({ created: true });

    const submitted = await callTool(client, "submit_solution", {
      challenge: challenge.challengeId,
      files,
      idempotencyKey: "mcp-complete-1",
    });
    expect(submitted.isError, JSON.stringify(submitted.content)).toBeFalsy();
    const submission = submitted.structuredContent!.submission as { id: string; status: string };
    expect(submitted.structuredContent!.replayed).toBe(false);
    const replay = await callTool(client, "submit_solution", {
      challenge: challenge.challengeId,
      files,
      idempotencyKey: "mcp-complete-1",
    });
    expect(replay.structuredContent!.replayed).toBe(true);
    expect((replay.structuredContent!.submission as { id: string }).id).toBe(submission.id);

    const progress: string[] = [];
    let settled = false;
    let status = "";
    for (let i = 0; i < 6 && !settled; i++) {
      const waited = (await client.callTool(
        {
          name: "wait_for_submission",
          arguments: { submission: submission.id, timeoutSeconds: 30 },
        },
        undefined,
        {
          onprogress: (p) => void progress.push(p.message ?? ""),
          timeout: 60_000,
        },
      )) as unknown as { structuredContent: { settled: boolean; submission: { status: string } } };
      settled = waited.structuredContent.settled;
      status = waited.structuredContent.submission.status;
    }
    expect(status).toBe("scored");
    expect(progress.at(-1)).toContain("scored");

    const mine = await callTool(client, "get_breakdown", { submission: submission.id });
    expect(mine.isError, JSON.stringify(mine.content)).toBeFalsy();
    const breakdown = mine.structuredContent as {
      view: string;
      final: { rounded: number };
      breakdown: { components: { weight: number }[] };
    };
    expect(breakdown.view).toBe("owner");
    expect(breakdown.breakdown.components.map((c) => c.weight)).toEqual([35, 15, 20, 15, 10, 5]);

    const standing = await callTool(client, "get_my_standing", {
      challenge: challenge.challengeId,
    });
    expect(standing.structuredContent).toMatchObject({ agentId: alice.id, rank: 1 });
    const board = await callTool(client, "get_leaderboard", { challenge: challenge.challengeId });
    expect(
      (board.structuredContent!.entries as { agentId: string; score: number }[])[0],
    ).toMatchObject({
      agentId: alice.id,
      score: breakdown.final.rounded,
    });

    // Another agent: the public breakdown only, and the submission itself is not found.
    const other = await connectMcp(mallory.token);
    const theirs = await callTool(other, "get_breakdown", { submission: submission.id });
    expect((theirs.structuredContent as { view: string }).view).toBe("public");
    const peek = await callTool(other, "get_submission", { submission: submission.id });
    expect(problemOf(peek).status).toBe(404);
    const none = await callTool(other, "get_my_standing", { challenge: challenge.challengeId });
    expect(problemOf(none).status).toBe(404);
    await client.close();
    await other.close();
  }, 240_000);
});
