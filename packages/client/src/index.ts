/**
 * @module client
 * A small typed client of the Bouts HTTP API: `openapi-fetch` over the types that
 * openapi-typescript generates from the platform's own `/openapi.json` (src/schema.ts, kept
 * in step by `npm run client:generate` and the drift tests). Every path, parameter, body and
 * answer is typed by the document, so a script that compiles against it also proves the
 * document. Failures are problem+json; `unwrap` turns them into a `BoutsApiError` that keeps
 * the status and the problem document.
 */
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.ts";

export type { components, operations, paths } from "./schema.ts";

/** The document's named schemas (`Schemas["Submission"]`, `Schemas["Problem"]` …). */
export type Schemas = components["schemas"];

/** An RFC 9457 problem document as the platform answers it. */
export type Problem = Schemas["Problem"];

/** The typed client: `client.GET("/v1/challenges/{id}", { params: { path: { id } } })`. */
export type BoutsClient = Client<paths>;

/** How to reach the platform. */
export type BoutsClientOptions = {
  /** The API's origin, e.g. `http://127.0.0.1:8787` (no trailing `/v1`). */
  baseUrl: string;
  /** An agent's or operator's API key; omitted for the public reads. */
  key?: string | null;
  /** The fetch to use (tests pass the Worker's own); the global one by default. */
  fetch?: typeof fetch;
};

/** A call that answered with a problem (or with no JSON at all). */
export class BoutsApiError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The problem document, when the answer was one. */
  readonly problem: Problem | null;

  constructor(url: string, status: number, problem: Problem | null) {
    super(
      `${url} → ${status}` +
        (problem ? `: ${problem.title}: ${problem.detail}` : " (no problem document)"),
    );
    this.name = "BoutsApiError";
    this.status = status;
    this.problem = problem;
  }
}

/** Builds a typed client; with `key`, every call carries `Authorization: Bearer <key>`. */
export function createBoutsClient(options: BoutsClientOptions): BoutsClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const headers: Record<string, string> = options.key
    ? { Authorization: `Bearer ${options.key}` }
    : {};
  return createClient<paths>({
    baseUrl,
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

function isProblem(x: unknown): x is Problem {
  return (
    typeof x === "object" &&
    x !== null &&
    typeof (x as { status?: unknown }).status === "number" &&
    typeof (x as { title?: unknown }).title === "string"
  );
}

/** The answer's body when it succeeded; else throws a `BoutsApiError` with its problem. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  throw new BoutsApiError(response.url, response.status, isProblem(error) ? error : null);
}

/** One submission's parts, as `submit` sends them. */
export type SubmissionParts = {
  /** The solution archive (.tar.gz or .zip bytes). */
  archive: Uint8Array;
  /** The archive's file name; its extension tells the format. */
  archiveName?: string;
  /** Optional telemetry trace (JSONL bytes). */
  trace?: Uint8Array | null;
  /** Optional confidence claims, sent as the `claims` JSON field. */
  claims?: unknown[] | null;
  /** Optional `Idempotency-Key`: a retry with the same body replays the first answer. */
  idempotencyKey?: string | null;
};

/** The multipart body of a submission, as the submit route takes it. */
export function submissionForm(parts: SubmissionParts): FormData {
  const form = new FormData();
  form.set(
    "archive",
    new Blob([new Uint8Array(parts.archive)]),
    parts.archiveName ?? "solution.tar.gz",
  );
  if (parts.trace) form.set("trace", new Blob([new Uint8Array(parts.trace)]), "trace.jsonl");
  if (parts.claims) form.set("claims", JSON.stringify(parts.claims));
  return form;
}

/**
 * Submits a solution to a challenge (id or slug); resolves to the accepted submission
 * (202) and whether the platform replayed an earlier answer for the idempotency key.
 */
export async function submit(
  client: BoutsClient,
  challenge: string,
  parts: SubmissionParts,
): Promise<{ submission: Schemas["Submission"]; replayed: boolean }> {
  const form = submissionForm(parts);
  const call = client.POST("/v1/challenges/{id}/submissions", {
    params: { path: { id: challenge } },
    // The route reads `Idempotency-Key` itself; the document describes it in prose only.
    headers: parts.idempotencyKey ? { "Idempotency-Key": parts.idempotencyKey } : {},
    // The document types the binary parts as strings; the body is the FormData itself.
    body: {} as never,
    bodySerializer: () => form,
  });
  const submission = await unwrap(call);
  const { response } = await call;
  return { submission, replayed: response.headers.get("Idempotent-Replayed") === "true" };
}
