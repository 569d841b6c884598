/**
 * Proves the challenge queries against a real D1: status moves draft → published → closed
 * only, each transition guarded (of parallel publishes one wins); a draft alone takes patches;
 * a bundle revert happens only while the row still names the upload; an entry is created once
 * and keeps its first time; deadlines are set only before they pass and list in order.
 */
import { describe, expect, it } from "vitest";
import {
  closeChallenge,
  enterChallenge,
  findChallenge,
  findEntry,
  insertChallenge,
  listChallenges,
  listDueChallenges,
  publishChallenge,
  revertDraftBundle,
  setChallengeDeadline,
  updateDraftChallenge,
} from "../src/index.ts";
import { T0, challengeRow, seedAgent, seedOperator, testDb } from "./seed.ts";

const db = testDb();

describe("the challenge lifecycle", () => {
  it("publishes a passed draft once, for the bundle QA ran on, then closes it once", async () => {
    const op = await seedOperator(db);
    const row = challengeRow(op);
    await insertChallenge(db, row);
    expect(await findChallenge(db, row.slug)).toMatchObject({ id: row.id, status: "draft" });
    expect(await publishChallenge(db, row.id, "f".repeat(64), T0 + 1)).toBe(false);
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        publishChallenge(db, row.id, row.bundleSha256 ?? "", T0 + 2 + i),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await findChallenge(db, row.id)).toMatchObject({ status: "published" });
    expect(await closeChallenge(db, row.id, T0 + 10)).toBe(true);
    expect(await closeChallenge(db, row.id, T0 + 11)).toBe(false);
    expect(await findChallenge(db, row.id)).toMatchObject({ status: "closed", closedAt: T0 + 10 });
    expect(await publishChallenge(db, row.id, row.bundleSha256 ?? "", T0 + 12)).toBe(false);
  });

  it("refuses to publish a draft whose QA failed, and to close a draft", async () => {
    const op = await seedOperator(db);
    const row = challengeRow(op, { qaPassed: false });
    await insertChallenge(db, row);
    expect(await publishChallenge(db, row.id, row.bundleSha256 ?? "", T0)).toBe(false);
    expect(await closeChallenge(db, row.id, T0)).toBe(false);
    expect((await findChallenge(db, row.id))?.status).toBe("draft");
  });

  it("patches only a draft, and reverts a bundle only while the row names the upload", async () => {
    const op = await seedOperator(db);
    const row = challengeRow(op);
    await insertChallenge(db, row);
    expect(
      await updateDraftChallenge(db, row.id, { title: "New", bundleKey: "up-1" }, T0 + 1),
    ).toBe(true);
    const previous = {
      bundleKey: row.bundleKey,
      bundleSha256: row.bundleSha256,
      bundleManifest: null,
      qaReport: null,
      qaPassed: true,
    };
    expect(await revertDraftBundle(db, row.id, "up-other", previous, T0 + 2)).toBe(false);
    expect((await findChallenge(db, row.id))?.bundleKey).toBe("up-1");
    expect(await revertDraftBundle(db, row.id, "up-1", previous, T0 + 3)).toBe(true);
    expect(await findChallenge(db, row.id)).toMatchObject({
      title: "New",
      bundleKey: row.bundleKey,
      updatedAt: T0 + 3,
    });
    await publishChallenge(db, row.id, row.bundleSha256 ?? "", T0 + 4);
    expect(await updateDraftChallenge(db, row.id, { title: "Late" }, T0 + 5)).toBe(false);
    expect((await findChallenge(db, row.id))?.title).toBe("New");
  });

  it("lists challenges by status, oldest first", async () => {
    const op = await seedOperator(db);
    const older = challengeRow(op, { createdAt: T0 - 2000, status: "closed" });
    const newer = challengeRow(op, { createdAt: T0 - 1000, status: "closed" });
    await insertChallenge(db, newer);
    await insertChallenge(db, older);
    const closed = (await listChallenges(db, ["closed"])).filter((c) => c.createdBy === op);
    expect(closed.map((c) => c.id)).toEqual([older.id, newer.id]);
    expect(await listChallenges(db, [])).toEqual([]);
  });
});

describe("entries", () => {
  it("enters an agent once and keeps the first entry time", async () => {
    const op = await seedOperator(db);
    const { agentId } = await seedAgent(db, op);
    const row = challengeRow(op, { status: "published" });
    await insertChallenge(db, row);
    const first = await enterChallenge(db, { agentId, challengeId: row.id, enteredAt: T0 + 1 });
    const second = await enterChallenge(db, { agentId, challengeId: row.id, enteredAt: T0 + 2 });
    expect(first).toEqual({
      entry: { agentId, challengeId: row.id, enteredAt: T0 + 1 },
      created: true,
    });
    expect(second).toEqual({
      entry: { agentId, challengeId: row.id, enteredAt: T0 + 1 },
      created: false,
    });
    expect(await findEntry(db, agentId, "other")).toBeUndefined();
  });
});

describe("deadlines", () => {
  it("sets a deadline only before it passes, and lists due published challenges by deadline", async () => {
    const op = await seedOperator(db);
    const start = T0 + 10_000_000;
    const late = challengeRow(op, { status: "published" });
    const early = challengeRow(op, { status: "published" });
    const draft = challengeRow(op);
    for (const r of [late, early, draft]) await insertChallenge(db, r);
    expect(await setChallengeDeadline(db, late.id, start + 200, start)).toBe(true);
    expect(await setChallengeDeadline(db, early.id, start + 100, start)).toBe(true);
    expect(await setChallengeDeadline(db, draft.id, start + 50, start)).toBe(true);
    const due = (await listDueChallenges(db, start + 200, 10)).filter((c) => c.createdBy === op);
    expect(due.map((c) => c.id)).toEqual([early.id, late.id]);
    expect((await listDueChallenges(db, start + 150, 10)).map((c) => c.id)).not.toContain(late.id);
    // Past its deadline (at exactly it, too) a deadline no longer moves.
    expect(await setChallengeDeadline(db, early.id, null, start + 100)).toBe(false);
    expect(await setChallengeDeadline(db, late.id, null, start + 150)).toBe(true);
    expect((await findChallenge(db, late.id))?.closesAt).toBeNull();
    await closeChallenge(db, late.id, start + 160);
    expect(await setChallengeDeadline(db, late.id, start + 999, start + 170)).toBe(false);
  });
});
