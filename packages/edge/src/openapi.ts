/**
 * @module edge/openapi
 * Helpers that keep route definitions short and the OpenAPI document complete: the one
 * `Problem` component, problem responses by status, JSON bodies, and the API-key security
 * schemes with the four requirements a route can declare (public, optional key, agent key,
 * operator key). Invariant: every problem response references the same `Problem` schema
 * under `application/problem+json`.
 */
// Loaded for its effect: it gives zod schemas `.openapi()`. A schema built before that (as
// ProblemSchema is when @bouts/contracts loads first, e.g. in the runner) has it only on a clone.
import "@hono/zod-openapi";
import type { z } from "@hono/zod-openapi";
import { PROBLEM_CONTENT_TYPE, ProblemSchema } from "@bouts/contracts";

/** The error document every failure returns, as the `Problem` component. */
export const ProblemDocSchema = ProblemSchema.clone().openapi("Problem");

/** What each problem status means, as the document describes it by default. */
export const PROBLEM_STATUS_TEXT = {
  400: "Malformed request: the problem's `errors` name each offending field",
  401: "Missing, malformed or revoked API key (see WWW-Authenticate)",
  403: "The key's role may not use this route",
  404: "No such resource (or not the caller's)",
  406: "The Accept header does not take the answer's media types",
  408: "The request body stopped arriving (shorter than its Content-Length) or took too long",
  409: "Conflicts with the resource's current state",
  411: "Content-Length required",
  413: "Upload too large",
  415: "Unsupported media type (the Content-Type, or the upload's signature)",
  422: "Well-formed but breaks a rule; `detail` (and `rule`) say which",
  426: "Only a WebSocket upgrade is accepted here",
  429: "Rate limit or quota exceeded; see Retry-After",
  502: "An upstream service answered badly or not at all",
  503: "A dependency is unavailable; nothing was stored; see Retry-After",
  504: "An upstream service did not answer in time",
} as const;

/** A status a route may answer with a problem. */
export type ProblemStatus = keyof typeof PROBLEM_STATUS_TEXT;

/** A problem status, or a status with the route's own description of when it happens. */
export type ProblemSpec = ProblemStatus | readonly [ProblemStatus, string];

/**
 * The schema of one server-sent event, for a route's `text/event-stream` response: OpenAPI 3.1
 * has no `itemSchema`, so tools such as Schemathesis read the media type's schema as each
 * event's (`data`, `event`, `id`, `retry`), never as the stream's text. `data` is described by
 * `data`; `events` lists the event names the route sends, when it names them.
 * @example "text/event-stream": { schema: sseEventDoc("one JSON-RPC message, as JSON text", ["message"]) }
 */
export function sseEventDoc(data: string, events?: readonly [string, ...string[]]) {
  return {
    type: "object" as const,
    required: ["data"],
    properties: {
      data: { type: "string" as const, description: data },
      event: events ? { type: "string" as const, enum: [...events] } : { type: "string" as const },
      id: { type: "string" as const },
      retry: { type: "integer" as const },
    },
  };
}

/**
 * Problem responses for a route's `responses`, one per status, each `application/problem+json`
 * with the `Problem` schema.
 * @example responses: { 200: json(Thing, "The thing"), ...problems(400, 401, [422, "Refused: …"]) }
 */
export function problems(...specs: ProblemSpec[]) {
  const out: Partial<
    Record<
      ProblemStatus,
      {
        description: string;
        content: { [PROBLEM_CONTENT_TYPE]: { schema: typeof ProblemDocSchema } };
      }
    >
  > = {};
  for (const spec of specs) {
    const [status, description] =
      typeof spec === "number" ? [spec, PROBLEM_STATUS_TEXT[spec]] : [spec[0], spec[1]];
    out[status] = {
      description,
      content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemDocSchema } },
    };
  }
  return out;
}

/** A JSON request or response body. */
export function json<T extends z.ZodType>(schema: T, description = "") {
  return { description, content: { "application/json": { schema } } };
}

// ─── Security ───

/** Name of the security scheme of agent keys. */
export const AGENT_KEY_SCHEME = "agentKey";
/** Name of the security scheme of operator keys. */
export const OPERATOR_KEY_SCHEME = "operatorKey";

const KEY_FORMAT = "`Authorization: Bearer bouts_<24 hex>_<43 characters>`";

/** The security schemes of the API, to register as components. */
export const SECURITY_SCHEMES = {
  [AGENT_KEY_SCHEME]: {
    type: "http",
    scheme: "bearer",
    description: `An agent's API key, ${KEY_FORMAT}: enters challenges, submits, registers webhooks.`,
  },
  [OPERATOR_KEY_SCHEME]: {
    type: "http",
    scheme: "bearer",
    description: `An operator's API key, ${KEY_FORMAT}: publishes challenges, manages agents and keys.`,
  },
} as const;

/** One security requirement: scheme names, each with its (empty) scope list. */
export type SecurityRequirement = Record<string, string[]>;

/** The security requirement a route declares, by who may call it. */
export const SECURITY: Record<
  "public" | "optionalKey" | "agent" | "operator",
  SecurityRequirement[]
> = {
  /** No key read at all. */
  public: [],
  /** No key gives the public answer; a valid key of either role gives that role's answer. */
  optionalKey: [{}, { [AGENT_KEY_SCHEME]: [] }, { [OPERATOR_KEY_SCHEME]: [] }],
  /** An agent key; an operator key gets 403. */
  agent: [{ [AGENT_KEY_SCHEME]: [] }],
  /** An operator key; an agent key gets 403. */
  operator: [{ [OPERATOR_KEY_SCHEME]: [] }],
};

/** Registers the API-key security schemes on an app's OpenAPI registry. */
export function registerSecuritySchemes(registry: {
  registerComponent(type: "securitySchemes", name: string, component: object): unknown;
}): void {
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) {
    registry.registerComponent("securitySchemes", name, scheme);
  }
}
