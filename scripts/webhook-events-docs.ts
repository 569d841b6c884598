/**
 * `npm run docs:events` — writes the list of webhook event types into docs/api.md (between the
 * `event-types` markers) from the code's own list (`SUBSCRIBABLE_EVENT_TYPES`, `@bouts/webhooks`),
 * so the document cannot miss an event the code sends; the scripts project's test fails when
 * the two differ.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
// The event list alone: the package entry also pulls in signing, which needs the Workers types.
import { EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from "../packages/webhooks/src/events.ts";
import { ROOT } from "./lib/local-platform.ts";

/** The document whose event list is generated. */
export const API_DOC = path.join(ROOT, "docs/api.md");
const START = "<!-- event-types:start (npm run docs:events) -->";
const END = "<!-- event-types:end -->";

/** The generated sentence: every subscribable type, and the ones sent only on request. */
export function renderEventTypes(): string {
  const code = (t: string) => `\`${t}\``;
  const subscribable = SUBSCRIBABLE_EVENT_TYPES.map(code);
  const onRequest = EVENT_TYPES.filter(
    (t) => !(SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(t),
  ).map(code);
  const list = `${subscribable.slice(0, -1).join(", ")} and ${subscribable.at(-1)!}`;
  return `\`eventTypes\` is a non-empty subset of ${list}; ${onRequest.join(", ")} ${onRequest.length === 1 ? "is" : "are"} sent only on request.`;
}

/** `markdown` with the region between the markers replaced by the generated list. */
export function withEventTypes(markdown: string): string {
  const a = markdown.indexOf(START);
  const b = markdown.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/api.md has no ${START} … ${END} region`);
  // Blank lines around the text, as the formatter keeps them.
  return `${markdown.slice(0, a + START.length)}\n\n${renderEventTypes()}\n\n${markdown.slice(b)}`;
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(API_DOC, withEventTypes(readFileSync(API_DOC, "utf8")));
  console.log(`wrote the event types into ${path.relative(ROOT, API_DOC)}`);
}
