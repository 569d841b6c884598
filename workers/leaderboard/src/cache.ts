/**
 * @module leaderboard/cache
 * Read-side caching (docs/leaderboard.md "Caching"). The board version lives in the Durable
 * Object; the Worker caches it in the colo's Cache API for a couple of seconds, so a colo asks
 * the object at most once per TTL per challenge. Board bodies are cached under a key that
 * includes that version, so a change is never served stale past the version TTL and nothing
 * needs purging. Invariants: cache failures degrade to a direct read, never to an error;
 * cache keys live under a private origin so no client URL can collide with them. This module
 * owns `CacheOptions` and imports nothing of the app's (types.ts imports it), so no cycle.
 */
import type { Context } from "hono";

/** What the cache needs of a request's context: only its execution context, for `waitUntil`. */
type CacheContext = Pick<Context, "executionCtx">;

const CACHE_ORIGIN = "https://leaderboard-cache.internal";

/** `Cache-Control` of board reads (leaderboard pages, standings). */
export const BOARD_CACHE_CONTROL = "public, max-age=5, stale-while-revalidate=30";
/** `Cache-Control` of challenge reads. */
export const CHALLENGE_CACHE_CONTROL = "public, max-age=30, stale-while-revalidate=60";

/** Cache lifetimes in seconds; 0 turns a layer off (tests, or an operator who wants it). */
export interface CacheOptions {
  /** How long a colo trusts a board version it read from the object. */
  versionTtlSeconds: number;
  /** How long a versioned board body stays (it never goes stale: the version is in the key). */
  bodyTtlSeconds: number;
  /** How long a challenge lookup (id/slug → public row) is cached. */
  challengeTtlSeconds: number;
}

/** Defaults of the deployed app. */
export const DEFAULT_CACHE_OPTIONS: CacheOptions = {
  versionTtlSeconds: 2,
  bodyTtlSeconds: 300,
  challengeTtlSeconds: 30,
};

function defer(c: CacheContext, work: Promise<unknown>): void {
  const settled = work.catch((err: unknown) => console.warn("cache write failed", err));
  try {
    c.executionCtx.waitUntil(settled);
  } catch {
    // No execution context (app.request in a unit test): let it finish on its own.
  }
}

/**
 * A JSON value from the colo's cache under `key`, or `load()` stored there for `ttlSeconds`.
 * `load` returning null is not cached (a missing thing may appear any moment).
 */
export async function readThroughCache<T>(
  c: CacheContext,
  key: string,
  ttlSeconds: number,
  load: () => Promise<T | null>,
): Promise<T | null> {
  if (ttlSeconds <= 0) return load();
  const request = new Request(`${CACHE_ORIGIN}/${key}`);
  let cache: Cache | null = null;
  try {
    cache = caches.default;
    const hit = await cache.match(request);
    if (hit) return await hit.json<T>();
  } catch (err) {
    console.warn("cache read failed", err);
  }
  const value = await load();
  if (value !== null && cache) {
    const stored = new Response(JSON.stringify(value), {
      headers: {
        "Content-Type": "application/json",
        "Cache-Control": `public, max-age=${ttlSeconds}`,
      },
    });
    defer(c, cache.put(request, stored));
  }
  return value;
}

/** A weak ETag for a board version. */
export function boardEtag(version: number): string {
  return `W/"${version}"`;
}

/** Whether `If-None-Match` names `etag` (weak comparison, `*` matches anything). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const wanted = opaque(etag);
  return header.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === wanted);
}

/** A 304 for a board read whose ETag the client already has. */
export function notModified(etag: string): Response {
  return new Response(null, {
    status: 304,
    headers: { ETag: etag, "Cache-Control": BOARD_CACHE_CONTROL },
  });
}
