/**
 * The e2e project's margin for `expect.poll` (e2e/vitest.config.ts): a browser call beside the
 * static checks can take seconds, and vitest's default of one second failed a page that was
 * there. A poll whose first answer takes 1.5 s must still pass.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";

it("lets a poll whose answer is slow to come still pass", async () => {
  await expect
    .poll(async () => {
      await sleep(1_500);
      return "Challenges";
    })
    .toBe("Challenges");
});
