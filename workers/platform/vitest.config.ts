/**
 * Vitest project "platform": the composed Worker's entry (fetch and queue dispatch) in
 * workerd through the Cloudflare plugin, against the root wrangler.toml.
 */
import path from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";

export default defineProject({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: path.join(import.meta.dirname, "../../wrangler.toml") },
    }),
  ],
  test: { name: "platform", include: ["test/**/*.test.ts"] },
});
