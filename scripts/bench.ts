/**
 * `npm run bench -- <name>` runs scripts/bench/<name>.ts. Each benchmark prints its figures
 * one per line as `name: value`. With no name it lists the benchmarks.
 */
import { readdirSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const dir = path.join(import.meta.dirname, "bench");
const names = readdirSync(dir)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3))
  .sort();
const name = process.argv[2];
if (!name || !names.includes(name)) {
  console.error(`usage: npm run bench -- <${names.join("|")}>`);
  process.exit(name ? 2 : 0);
}
const mod = (await import(pathToFileURL(path.join(dir, `${name}.ts`)).href)) as {
  default: (args: string[]) => Promise<void>;
};
await mod.default(process.argv.slice(3));
