/**
 * @module leaderboard/pages/submission/exact
 * How an exact number of a breakdown reads on the page. Pure; text is escaped by `html`.
 */
import type { z } from "zod";
import type { ExactValueSchema } from "@bouts/contracts";
import { html, type Html } from "../html.ts";

/** An exact number: its decimal text, and the fraction when it differs. */
export function renderExact(v: z.infer<typeof ExactValueSchema>): Html {
  return v.fraction !== v.text
    ? html`${v.text} <span class="fraction">(= ${v.fraction})</span>`
    : html`${v.text}`;
}
