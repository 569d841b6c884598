/**
 * @module leaderboard/types
 * Hono typing of the leaderboard app. `Env` is generated from the root wrangler.toml, which
 * declares every binding the app reads (`DB`, the `LEADERBOARD` Durable Object, the rate limits).
 */
import type { CacheOptions } from "./cache.ts";

/** The bindings the leaderboard app reads. */
export type LeaderboardBindings = Env;

/** The Hono environment of every leaderboard route. */
export type LeaderboardEnv = {
  Bindings: LeaderboardBindings;
  Variables: { cache: CacheOptions };
};
