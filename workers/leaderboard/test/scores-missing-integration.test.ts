/**
 * Until the score worker's migration adds `scores`, the routes that read it answer a clean
 * 503 problem (the table is dropped here, so this holds whether or not the migration exists).
 */
import { env, exports } from "cloudflare:workers";
import { beforeAll, expect, it } from "vitest";
import { expectProblem, seedChallenge, seedSubmission } from "./helpers.ts";

beforeAll(async () => {
  await env.DB.exec("DROP TABLE IF EXISTS scores");
});

it("answers 503 for a breakdown and a rebuild while the scores table is absent", async () => {
  const { challengeId, agents, operatorToken } = await seedChallenge({ agents: 1 });
  const submissionId = await seedSubmission(challengeId, agents[0]!.id, 1);
  const breakdown = await exports.default.fetch(
    new Request(`https://leaderboard.test/v1/submissions/${submissionId}/breakdown`),
  );
  await expectProblem(breakdown, 503);
  expect(breakdown.headers.get("Retry-After")).toBe("60");
  const rebuild = await exports.default.fetch(
    new Request(`https://leaderboard.test/v1/challenges/${challengeId}/leaderboard/rebuild`, {
      method: "POST",
      headers: { Authorization: `Bearer ${operatorToken}` },
    }),
  );
  await expectProblem(rebuild, 503);
  expect(await env.LEADERBOARD.getByName(challengeId).getVersion()).toBe(0);
});
