/** The MCP resource bouts://docs/scoring is docs/scoring.md as it stands (npm run mcp:docs). */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../lib/local-platform.ts";
import { renderScoringRulesModule, SCORING_RULES_MODULE } from "../mcp-docs.ts";

describe("the scoring rules served over MCP", () => {
  it("are docs/scoring.md byte for byte (run npm run mcp:docs after editing it)", () => {
    const markdown = readFileSync(path.join(ROOT, "docs/scoring.md"), "utf8");
    expect(readFileSync(SCORING_RULES_MODULE, "utf8")).toBe(renderScoringRulesModule(markdown));
  });
});
