/**
 * @module leaderboard/types
 * Hono typing of the leaderboard app. `Env` is generated from the root wrangler.toml; until
 * the lead adds the `LEADERBOARD` Durable Object binding there (and regenerates it), the
 * binding is declared here, so the code compiles either way.
 */
import type { CacheOptions } from "./cache.ts";
import type { ChallengeLeaderboard } from "./leaderboard-object.ts";

/** The bindings the leaderboard app reads. */
export type LeaderboardBindings = Env & {
  LEADERBOARD: DurableObjectNamespace<ChallengeLeaderboard>;
};

/** The Hono environment of every leaderboard route. */
export type LeaderboardEnv = {
  Bindings: LeaderboardBindings;
  Variables: { cache: CacheOptions };
};
