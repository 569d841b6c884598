/**
 * `npm run docs:events` — writes the webhook events into the docs from the code's one list
 * (`EVENT_TYPES` and `EVENT_DOCS`, `@bouts/contracts` webhook-events.ts): the list of event
 * types into docs/api.md and the table of events into docs/webhooks.md (each between its
 * markers), so the documents cannot miss an event the code sends; the scripts project's test
 * fails when they differ.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
// The event list alone: the package entry also pulls in every other contract.
import {
  EVENT_DOCS,
  EVENT_TYPES,
  SUBSCRIBABLE_EVENT_TYPES,
} from "../packages/contracts/src/webhook-events.ts";
import { ROOT } from "./lib/local-platform.ts";

/** The document whose event list is generated. */
export const API_DOC = path.join(ROOT, "docs/api.md");
/** The document whose table of events is generated. */
export const WEBHOOKS_DOC = path.join(ROOT, "docs/webhooks.md");
const START = "<!-- event-types:start (npm run docs:events) -->";
const END = "<!-- event-types:end -->";
const TABLE_START = "<!-- event-table:start (npm run docs:events) -->";
const TABLE_END = "<!-- event-table:end -->";

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

/** The generated table: one row per event type, padded as the formatter pads Markdown tables. */
export function renderEventTable(): string {
  const rows = [
    ["type", "sent to", "`data`"],
    ...EVENT_TYPES.map((t) => [`\`${t}\``, EVENT_DOCS[t].sentTo, EVENT_DOCS[t].data]),
  ];
  const width = (s: string) => [...s].length;
  const widths = rows[0]!.map((_, i) => Math.max(3, ...rows.map((r) => width(r[i]!))));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c + " ".repeat(widths[i]! - width(c))).join(" | ")} |`;
  const [header, ...body] = rows;
  return [line(header!), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

/** `markdown` with the region between `start` and `end` replaced by `text`. */
function withRegion(markdown: string, start: string, end: string, text: string): string {
  const a = markdown.indexOf(start);
  const b = markdown.indexOf(end);
  if (a < 0 || b < a) throw new Error(`no ${start} … ${end} region`);
  // Blank lines around the text, as the formatter keeps them.
  return `${markdown.slice(0, a + start.length)}\n\n${text}\n\n${markdown.slice(b)}`;
}

/** `markdown` with the region between the markers replaced by the generated list. */
export function withEventTypes(markdown: string): string {
  return withRegion(markdown, START, END, renderEventTypes());
}

/** `markdown` with the region between the table markers replaced by the generated table. */
export function withEventTable(markdown: string): string {
  return withRegion(markdown, TABLE_START, TABLE_END, renderEventTable());
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(API_DOC, withEventTypes(readFileSync(API_DOC, "utf8")));
  writeFileSync(WEBHOOKS_DOC, withEventTable(readFileSync(WEBHOOKS_DOC, "utf8")));
  console.log(
    `wrote the event types into ${path.relative(ROOT, API_DOC)} and ${path.relative(ROOT, WEBHOOKS_DOC)}`,
  );
}
