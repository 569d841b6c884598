/** eslint-plugin-security 4.1.0 ships no types: only the shape the scanner uses. */
declare module "eslint-plugin-security" {
  import type { ESLint } from "eslint";
  const plugin: ESLint.Plugin & { meta: { name: string; version: string } };
  export default plugin;
}
