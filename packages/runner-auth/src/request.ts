/**
 * @module runner-auth/request
 * Builds a signed `Request` for the runner from a URL and a body (FormData is serialized once,
 * so the bytes signed are the bytes sent). Pure: the caller passes `now` and the nonce.
 */
import { err, ok, type Result } from "@bouts/result";
import { RUNNER_AUTH_HEADERS, signRunnerRequest, type RunnerAuthError } from "./signing.ts";

/** What {@link buildSignedRequest} sends. */
export interface SignedRequestOptions {
  url: string;
  method: string;
  body?: FormData | Uint8Array<ArrayBuffer>;
  signal?: AbortSignal;
  secret: string;
  now: Date;
  nonce: string;
}

/**
 * A request carrying `X-Bouts-Timestamp`, `X-Bouts-Nonce` and `X-Bouts-Signature` over its
 * serialized body (and the multipart `Content-Type` with its boundary).
 * @example
 * const r = await buildSignedRequest({ url, method: "POST", body: form, secret,
 *   now: new Date(), nonce: crypto.randomUUID() });
 * if (r.ok) await fetch(r.value);
 */
export async function buildSignedRequest(
  options: SignedRequestOptions,
): Promise<Result<Request, RunnerAuthError>> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return err({ reason: "invalid-header", header: "url", detail: `not a URL: ${options.url}` });
  }
  const draft = new Request(url, {
    method: options.method,
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  const body = new Uint8Array(await draft.arrayBuffer());
  const signed = await signRunnerRequest({
    method: options.method,
    path: url.pathname + url.search,
    body,
    secret: options.secret,
    now: options.now,
    nonce: options.nonce,
  });
  if (!signed.ok) return signed;
  const headers = new Headers(draft.headers);
  for (const name of Object.values(RUNNER_AUTH_HEADERS)) headers.set(name, signed.value[name]);
  return ok(
    new Request(url, {
      method: options.method,
      headers,
      ...(options.body !== undefined ? { body } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    }),
  );
}
