/**
 * @module leaderboard/types
 * Hono typing of the leaderboard routes. `Env` is generated from the root wrangler.toml.
 * Invariant: every public read sets `cache` and `caller` (anonymous unless the route reads
 * an optional key), so a handler can rely on both.
 */
import type { Caller } from "@bouts/auth";
import type { CacheOptions } from "./cache.ts";

/** The bindings the leaderboard app reads. */
export type LeaderboardBindings = Env;

/** The Hono environment of every leaderboard route. */
export type LeaderboardEnv = {
  Bindings: LeaderboardBindings;
  Variables: { cache: CacheOptions; caller: Caller };
};
