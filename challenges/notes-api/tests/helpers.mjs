import { createApp } from "../app.mjs";

/** Starts the app; `options` go to createApp (e.g. `{ database }`, a path it must store in). */
export async function start(options) {
  const app = options === undefined ? createApp() : createApp(options);
  await new Promise((resolve) => app.server.listen(0, "127.0.0.1", resolve));
  const { port } = app.server.address();
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body, token) => {
    const headers = { "content-type": "application/json", connection: "close" };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, json };
  };
  const close = () =>
    new Promise((resolve) => {
      app.server.closeAllConnections?.();
      app.server.close(resolve);
    });
  const user = async (name, password = "correct horse battery") => {
    await call("POST", "/register", { username: name, password });
    const r = await call("POST", "/login", { username: name, password });
    return r.json?.token;
  };
  return { app, call, close, user };
}
