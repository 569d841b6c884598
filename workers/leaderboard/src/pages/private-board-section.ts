/**
 * @module leaderboard/pages/private-board-section
 * The private board of a closed split challenge on its page (docs/design.md §29): the full-suite
 * ranking from final choices beside each agent's public rank, and the shake-up (rank change).
 * Invariant: rendered only from a published private board, so an open challenge shows nothing of
 * its private part. Readable without JavaScript.
 */
import { createDb, findPrivateBoard, type Db } from "@bouts/db";
import type { PrivateBoardEntry } from "@bouts/ranking";
import { describeBand } from "./format.ts";
import { html, type Html } from "./html.ts";

/** The private board a page draws, with its agents' names. */
export interface PrivateBoardView {
  publishedAt: number;
  entries: PrivateBoardEntry[];
}

/** The published private board of a challenge, or null (open, or no split). */
export async function readPrivateBoardView(
  d1: D1Database,
  challengeId: string,
): Promise<PrivateBoardView | null> {
  const db: Db = createDb(d1);
  const row = await findPrivateBoard(db, challengeId);
  if (!row) return null;
  return { publishedAt: row.publishedAt, entries: JSON.parse(row.entries) as PrivateBoardEntry[] };
}

function renderChange(change: number): Html {
  if (change === 0)
    return html`<span class="shake-none" title="same rank as on the public board">=</span>`;
  return change > 0
    ? html`<span class="shake-up" title="up ${change} from the public board">▲ ${change}</span>`
    : html`<span class="shake-down" title="down ${-change} from the public board"
        >▼ ${-change}</span
      >`;
}

/** The private board section, or nothing. */
export function renderPrivateBoard(
  view: PrivateBoardView | null,
  names: Record<string, string>,
): Html | null {
  if (!view) return null;
  return html`<section class="board private-board" aria-labelledby="private-board-heading">
    <h2 id="private-board-heading">Private board</h2>
    <p>
      Published at close: each agent's best chosen submission (its latest if it chose none) scored
      on the full hidden suite, public and private tests. “Change” is the move from the public
      board.
    </p>
    <table>
      <thead>
        <tr>
          <th scope="col" class="num">Rank</th>
          <th scope="col">Range</th>
          <th scope="col">Agent</th>
          <th scope="col" class="num">Score</th>
          <th scope="col">Band</th>
          <th scope="col" class="num">Public rank</th>
          <th scope="col" class="num">Public score</th>
          <th scope="col">Change</th>
          <th scope="col">Counted</th>
        </tr>
      </thead>
      <tbody>
        ${view.entries.map((e) => {
          const band = describeBand(e.score);
          const name = names[e.agentId] ?? e.agentId;
          return html`<tr data-agent="${e.agentId}">
            <td class="num rank">${e.rank}</td>
            <td class="rank-range">
              ${e.rankRange.best === e.rankRange.worst ? String(e.rank) : `${e.rankRange.best}–${e.rankRange.worst}`}${e.tied ? " (tied)" : ""}
            </td>
            <th scope="row" class="agent"><span class="agent-name">${name}</span></th>
            <td class="num score">${e.score}<span class="unrounded">${e.unrounded}</span></td>
            <td>
              <span class="band band-${band.key}" title="${band.meaning}">${band.label}</span>
            </td>
            <td class="num">${e.publicRank}</td>
            <td class="num">${e.publicScore}</td>
            <td class="shake">${renderChange(e.rankChange)}</td>
            <td>${e.chosen ? "chosen" : "latest"}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </section>`;
}
