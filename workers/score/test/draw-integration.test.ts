/**
 * Same code, same score (issue 34, family 4; docs/design.md §31), through the live pipeline and
 * the real sandboxed runner: deep-merge's partial solution uploaded as a tar.gz and as a stored
 * zip in a wrapper folder is one input — the same generated tests, verdicts and score.
 * Invariant: submissions only run through the runner the score role calls.
 */
import { env } from "cloudflare:workers";
import { BreakdownSchema } from "@bouts/contracts";
import { findScore } from "@bouts/db";
import { describe, expect, it } from "vitest";
import { processSubmission, type ConsumerEnv } from "./score-env.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

const scoreEnv = () => env as unknown as ConsumerEnv;

async function fixtureBytes(path: string): Promise<Uint8Array> {
  const res = await env.FIXTURES.fetch(`http://fixtures/${path}`);
  if (!res.ok) throw new Error(`fixture ${path}: ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

describe("the same files packed twice", () => {
  it("get the same generated tests, verdicts and score", async () => {
    const challenge = await seedChallenge("deep-merge");
    const tarGz = await fixtureBytes("submission/deep-merge/partial");
    const zip = await fixtureBytes("zip/deep-merge/partial");
    const ids: string[] = [];
    for (const bytes of [tarGz, zip]) {
      const id = await seedSubmission(challenge, await seedAgent(challenge), bytes);
      const outcome = await processSubmission(scoreEnv(), id, () => Date.now());
      expect(outcome.action, outcome.note).toBe("ack");
      ids.push(id);
    }
    const [a, b] = await Promise.all(ids.map((id) => findScore(db(), id)));
    const ba = BreakdownSchema.parse(JSON.parse(a!.breakdown));
    const bb = BreakdownSchema.parse(JSON.parse(b!.breakdown));
    const adversarial = (x: typeof ba) => x.components.find((c) => c.key === "adversarial");
    expect(adversarial(bb)).toEqual(adversarial(ba));
    expect(b!.finalRounded).toBe(a!.finalRounded);
    expect(bb.final).toEqual(ba.final);
  }, 900_000);
});
