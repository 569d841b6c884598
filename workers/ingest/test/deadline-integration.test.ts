/**
 * A challenge's deadline through the HTTP API and the sweep: set at create or later (future
 * only), moved or cleared while open; past it, no entry, submission or final choice is taken
 * even before the sweep runs, and the sweep closes it as the operator's close would (status,
 * `closed` and `private-board-published` events with the system as actor). Hostile: an agent cannot set it, and a deadline in
 * the past is refused rather than closing the challenge at once.
 */
import { env } from "cloudflare:workers";
import { createDb, findChallenge, listChallengeHistory, recordSplit } from "@bouts/db";
import { describe, expect, it } from "vitest";
import { sweepIngest } from "../src/sweep.ts";
import {
  call,
  callJson,
  createAgent,
  expectProblem,
  publishedChallenge,
  seedOperator,
  submissionForm,
  submit,
  tarGz,
} from "./helpers.ts";

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe("a challenge's deadline", () => {
  it("is set at create, refused in the past, moved while open, and never by an agent", async () => {
    const op = await seedOperator();
    const past = await callJson(
      "/v1/challenges",
      "POST",
      {
        slug: "deadline-past",
        title: "t",
        profile: "engineering",
        maxIterations: 3,
        closesAt: iso(Date.now() - 1000),
      },
      op.token,
    );
    expect((await expectProblem(past, 422)).detail).toContain("not in the future");
    const id = await publishedChallenge(op.token, "deadline-a", {
      closesAt: iso(Date.now() + HOUR),
    });
    const read = await call(`/v1/challenges/${id}`, { token: op.token });
    expect((await read.json<{ closesAt: string | null }>()).closesAt).not.toBeNull();
    const later = iso(Date.now() + 2 * HOUR);
    const moved = await callJson(
      `/v1/challenges/${id}/deadline`,
      "PUT",
      { closesAt: later },
      op.token,
    );
    expect(moved.status).toBe(200);
    expect((await moved.json<{ closesAt: string }>()).closesAt).toBe(later);
    const agent = await createAgent(op.token);
    const byAgent = await callJson(
      `/v1/challenges/${id}/deadline`,
      "PUT",
      { closesAt: null },
      agent.token,
    );
    expect(byAgent.status).toBe(403);
    const cleared = await callJson(
      `/v1/challenges/${id}/deadline`,
      "PUT",
      { closesAt: null },
      op.token,
    );
    expect((await cleared.json<{ closesAt: string | null }>()).closesAt).toBeNull();
  });

  it("refuses entries, submissions and final choices once past, and the sweep closes it", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    const id = await publishedChallenge(op.token, "deadline-b", {
      closesAt: iso(Date.now() + HOUR),
    });
    expect(
      (await call(`/v1/challenges/${id}/entries`, { method: "POST", token: agent.token })).status,
    ).toBe(201);
    // The deadline passes (moved into the past directly: the API refuses a past deadline).
    await env.DB.prepare("UPDATE challenges SET closes_at = ? WHERE id = ?")
      .bind(Date.now() - 1000, id)
      .run();
    const late = await createAgent(op.token, "late");
    await expectProblem(
      await call(`/v1/challenges/${id}/entries`, { method: "POST", token: late.token }),
      409,
    );
    const refused = await submit(id, agent.token, submissionForm(await tarGz({ "a.js": "late" })));
    expect((await expectProblem(refused, 409)).detail).toContain("closed to new submissions");
    const choice = await callJson(
      `/v1/challenges/${id}/final-choices`,
      "PUT",
      { submissionIds: [] },
      agent.token,
    );
    expect((await expectProblem(choice, 409)).detail).toContain("past its deadline");
    // Still `published` until the sweep: the sweep closes it, as the operator's close would.
    const db = createDb(env.DB);
    // With a split, so the close publishes a private board too: one actor rule for both events.
    await recordSplit(db, {
      challengeId: id,
      method: "declared",
      seed: null,
      privatePercent: null,
      privateIds: "[]",
      finalChoices: 2,
      bundleSha256: "0".repeat(64),
      recordedAt: Date.now(),
    });
    expect((await findChallenge(db, id))!.status).toBe("published");
    const swept = await sweepIngest(env, Date.now());
    expect(swept.closedAtDeadline).toBeGreaterThanOrEqual(1);
    expect((await findChallenge(db, id))!.status).toBe("closed");
    const closed = (await listChallengeHistory(db, id)).filter((e) => e.type === "closed");
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({ actorKind: "system", actorId: "deadline" });
    const board = (await listChallengeHistory(db, id)).filter(
      (e) => e.type === "private-board-published",
    );
    expect(board).toHaveLength(1);
    expect(board[0]).toMatchObject({ actorKind: "system", actorId: "deadline" });
    // A second sweep changes nothing; moving the deadline of a closed challenge is refused.
    await sweepIngest(env, Date.now());
    expect((await listChallengeHistory(db, id)).filter((e) => e.type === "closed")).toHaveLength(1);
    await expectProblem(
      await callJson(
        `/v1/challenges/${id}/deadline`,
        "PUT",
        { closesAt: iso(Date.now() + HOUR) },
        op.token,
      ),
      409,
    );
  });
});
