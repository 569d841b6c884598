/** The webhook event types in the docs are the code's (npm run docs:events writes docs/api.md's). */
import { readFileSync } from "node:fs";
import path from "node:path";
import { EVENT_TYPES } from "../../packages/webhooks/src/events.ts";
import { describe, expect, it } from "vitest";
import { ROOT } from "../lib/local-platform.ts";
import { API_DOC, WEBHOOKS_DOC, withEventTable, withEventTypes } from "../webhook-events-docs.ts";

describe("the webhook event types in the docs", () => {
  it("are generated into docs/api.md from the code (run npm run docs:events after a change)", () => {
    const doc = readFileSync(API_DOC, "utf8");
    expect(doc).toBe(withEventTypes(doc));
    for (const t of EVENT_TYPES) expect(doc).toContain(`\`${t}\``);
  });

  it("each have a row in docs/webhooks.md's table of events", () => {
    const lines = readFileSync(path.join(ROOT, "docs/webhooks.md"), "utf8").split("\n");
    const header = lines.findIndex((l) => /^\| type +\| sent to +\|/.test(l));
    expect(header).toBeGreaterThanOrEqual(0);
    const table = lines.slice(header + 2);
    const rows = table
      .slice(
        0,
        table.findIndex((l) => !l.startsWith("|")),
      )
      .map((l) => /^\| `([a-z.]+)` +\|/.exec(l)?.[1]);
    expect(new Set(rows)).toEqual(new Set(EVENT_TYPES));
  });

  it("have docs/webhooks.md's table generated from the code (run npm run docs:events after a change)", () => {
    const doc = readFileSync(WEBHOOKS_DOC, "utf8");
    expect(doc).toBe(withEventTable(doc));
  });
});
