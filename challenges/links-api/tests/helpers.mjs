import { createApp } from "../app.mjs";

/**
 * Starts a fresh app for one test; `options` go to createApp (e.g. `{ database }`, a path it
 * must store in). Every test calls this and closes what it started: without a path the app keeps
 * its data in its own `:memory:` database, so each test begins with an empty one. (The `db`
 * handle createApp returns stays in the process that runs the submission; only the server is
 * reachable from a test, so a test cannot wrap itself in BEGIN … ROLLBACK. A fresh database per
 * test gives the same guarantee.) Usernames differ from test to test as well, so no test depends
 * on that guarantee either.
 */
export async function start(options) {
  const app = options === undefined ? createApp() : createApp(options);
  await new Promise((resolve) => app.server.listen(0, "127.0.0.1", resolve));
  const { port } = app.server.address();
  const base = `http://127.0.0.1:${port}`;
  /** One request on its own connection; `headers` adds to (or, as null, removes) the defaults. */
  const call = async (method, path, body, token, headers = {}) => {
    const sent = { "content-type": "application/json", connection: "close" };
    if (token !== undefined) sent.authorization = `Bearer ${token}`;
    for (const [k, v] of Object.entries(headers)) {
      if (v === null) delete sent[k];
      else sent[k] = v;
    }
    const res = await fetch(base + path, {
      method,
      headers: sent,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, json, text, headers: res.headers };
  };
  const close = () =>
    new Promise((resolve) => {
      app.server.closeAllConnections?.();
      app.server.close(resolve);
    });
  /** Registers `name` and logs in; the token, or undefined when either step failed. */
  const user = async (name, password = "correct horse battery") => {
    await call("POST", "/register", { username: name, password });
    const r = await call("POST", "/login", { username: name, password });
    return r.json?.token;
  };
  /** Creates a bookmark as `token`; the created bookmark (or null). */
  const link = async (token, fields) => {
    const r = await call("POST", "/links", { url: "https://example.com/", ...fields }, token);
    return r.status === 201 ? r.json : null;
  };
  return { app, call, close, user, link };
}

/** The fields of each issue of a problem body (`issues[].path`), or [] when it has none. */
export function issuePaths(json) {
  return Array.isArray(json?.issues) ? json.issues.map((i) => i?.path) : [];
}

/** True when a response is a JSON problem: a JSON content type and the status in the body. */
export function isProblem(r) {
  return /json/.test(r.headers.get("content-type") ?? "") && r.json?.status === r.status;
}
