/**
 * A scriptable webhook receiver that runs Node-side, behind Miniflare's `outboundService`:
 * every `fetch` the Worker makes lands here. Requests to the control host `receiver.test`
 * script answers per path and read back what was received; any other request is recorded
 * and answered from its path's script (204 when nothing is scripted). State is per test run
 * (Node process); tests use distinct paths, so files never share a script.
 */

/** An answer the receiver gives, in order, for one path. */
export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** A request the receiver recorded. */
export interface ReceivedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** The control origin. */
export const CONTROL_ORIGIN = "http://receiver.test";

const scripts = new Map<string, ScriptedAnswer[]>();
const received = new Map<string, ReceivedRequest[]>();

/** The outbound handler. */
export async function handleReceiver(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.host === "receiver.test") {
    const path = url.searchParams.get("path") ?? "";
    if (url.pathname === "/script" && request.method === "POST") {
      scripts.set(path, await request.json<ScriptedAnswer[]>());
      return new Response(null, { status: 204 });
    }
    if (url.pathname === "/received") return Response.json(received.get(path) ?? []);
    return new Response("unknown control route", { status: 404 });
  }
  const list = received.get(url.pathname) ?? [];
  list.push({
    url: request.url,
    method: request.method,
    headers: Object.fromEntries(request.headers),
    body: await request.text(),
  });
  received.set(url.pathname, list);
  const answer = scripts.get(url.pathname)?.shift() ?? { status: 204 };
  return new Response(answer.body ?? null, {
    status: answer.status,
    headers: answer.headers ?? {},
  });
}
