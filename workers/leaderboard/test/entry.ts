/**
 * The Worker under test: the public leaderboard app and the Durable Object class, as the
 * platform Worker will compose them once the root wrangler.toml declares the binding.
 */
import { leaderboardApp, type LeaderboardBindings } from "../src/index.ts";

export { ChallengeLeaderboard } from "../src/index.ts";

export default {
  fetch: (request, env, ctx) => leaderboardApp.fetch(request, env, ctx),
} satisfies ExportedHandler<LeaderboardBindings>;
