/**
 * `npm run client:generate` — regenerates packages/client from the live document: starts the
 * platform Worker locally (wrangler's `unstable_startWorker`, root wrangler.toml, no state
 * kept), reads `/openapi.json`, and writes packages/client/openapi.json and
 * packages/client/src/schema.ts. `--check` writes nothing and exits 1 when either differs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { unstable_startWorker } from "wrangler";
import { renderDocument, renderSchemaModule } from "../packages/client/src/generate.ts";
import { ROOT, wranglerEnv } from "./lib/local-platform.ts";

const check = process.argv.includes("--check");
Object.assign(process.env, wranglerEnv());
const worker = await unstable_startWorker({
  config: path.join(ROOT, "wrangler.toml"),
  dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, persist: false },
});
let document: object;
try {
  const res = await worker.fetch("http://127.0.0.1/openapi.json");
  if (!res.ok) throw new Error(`/openapi.json answered ${res.status}`);
  document = (await res.json()) as object;
} finally {
  await worker.dispose();
}

const files = {
  "packages/client/openapi.json": (p: string) => renderDocument(document, p),
  "packages/client/src/schema.ts": (p: string) => renderSchemaModule(document, p),
};
let stale = 0;
for (const [file, render] of Object.entries(files)) {
  const full = path.join(ROOT, file);
  const next = await render(full);
  let current = "";
  try {
    current = readFileSync(full, "utf8");
  } catch {
    // missing: stale
  }
  if (current === next) continue;
  stale++;
  if (check) console.error(`${file} is stale: run npm run client:generate`);
  else {
    writeFileSync(full, next);
    console.log(`wrote ${file}`);
  }
}
if (check && stale > 0) process.exit(1);
if (stale === 0) console.log("packages/client is up to date with /openapi.json");
