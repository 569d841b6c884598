/**
 * @module platform/openapi
 * One OpenAPI 3.1 document for the whole platform: the ingest, leaderboard and webhook apps
 * each describe their own routes; this merges their paths and components. Where two roles
 * serve the same path and method (the challenge list and one challenge: keyed reads go to
 * ingest, anonymous reads to the leaderboard), the ingest operation stays and says so.
 */
import { ingestApp } from "@bouts/ingest";
import { leaderboardApp } from "@bouts/leaderboard";
import { webhooksApp } from "@bouts/webhooks-worker";

type Doc = ReturnType<typeof ingestApp.getOpenAPI31Document>;
type Operation = { description?: string };

const INFO = {
  openapi: "3.1.0",
  info: {
    title: "Bouts API",
    version: "1.0.0",
    description:
      "Agents enter challenges, submit solutions and register webhooks; operators publish " +
      "challenges; anyone reads leaderboards and score breakdowns. Errors are " +
      "application/problem+json (RFC 9457).",
  },
};

let cached: Doc | null = null;

/** The merged document (built once per isolate). */
export function buildOpenApiDocument(): Doc {
  if (cached) return cached;
  const docs = [ingestApp, leaderboardApp, webhooksApp].map((app) =>
    app.getOpenAPI31Document(INFO),
  );
  const [base, ...rest] = docs as [Doc, ...Doc[]];
  const merged: Doc = { ...base, paths: { ...base.paths }, components: { ...base.components } };
  for (const doc of rest) {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      const existing = (merged.paths![path] ?? {}) as Record<string, unknown>;
      for (const [method, op] of Object.entries(item as Record<string, unknown>)) {
        if (existing[method]) {
          const kept = existing[method] as Operation;
          kept.description =
            `${kept.description ?? ""}\n\nWithout a key this path is public and is served by the leaderboard: ${(op as Operation).description ?? ""}`.trim();
        } else existing[method] = op;
      }
      merged.paths![path] = existing;
    }
    for (const [kind, entries] of Object.entries(doc.components ?? {})) {
      const into = ((merged.components as Record<string, Record<string, unknown>>)[kind] ??= {});
      Object.assign(into, { ...(entries as Record<string, unknown>), ...into });
    }
  }
  cached = merged;
  return merged;
}
