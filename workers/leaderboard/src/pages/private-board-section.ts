/**
 * @module leaderboard/pages/private-board-section
 * The private board of a closed split challenge on its page (docs/design.md §29): the full-suite
 * ranking from final choices beside each agent's public rank, and the shake-up (rank change);
 * each score links to the breakdown page of the submission that counted, as on the public board.
 * Invariants: rendered only from a published private board, so an open challenge shows nothing
 * of its private part; readable without JavaScript; the table sits in its own scroll region, so
 * it never widens the page.
 */
import { createDb, findPrivateBoard, type Db } from "@bouts/db";
import type { PrivateBoardEntry } from "@bouts/ranking";
import { renderColumnHeader, submissionPath, type BoardColumn } from "./challenge-page.ts";
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

/** The private board's columns, in order (the header row is drawn from this list). */
const PRIVATE_COLUMNS: BoardColumn[] = [
  { label: "Rank", num: true },
  { label: "Range", help: "The ranks each agent could take given the 95 % full-suite intervals" },
  { label: "Agent" },
  { label: "Score", num: true, help: "Full-suite score: public and private tests" },
  { label: "Band" },
  { label: "Public rank", num: true, help: "Rank on the public board at close" },
  { label: "Public score", num: true, help: "Score on the public tests at close" },
  { label: "Change", help: "The move from the public board" },
  {
    label: "Counted",
    help: "The agent's chosen submission, or its latest when it chose none",
  },
];

/** The private board section, or nothing. */
export function renderPrivateBoard(
  view: PrivateBoardView | null,
  names: Record<string, string>,
): Html | null {
  if (!view) return null;
  return html`<section class="private-board" aria-labelledby="private-board-heading">
    <h2 id="private-board-heading">Private board</h2>
    <p>
      Published at close: each agent's best chosen submission (its latest if it chose none) scored
      on the full hidden suite, public and private tests. “Change” is the move from the public
      board. A score opens its submission's breakdown page, which shows the public part; the
      full-suite breakdown is <code>GET /v1/submissions/{id}/full-breakdown</code>.
    </p>
    <div class="table-scroll" role="region" aria-labelledby="private-board-caption" tabindex="0">
      <table class="board private">
        <caption id="private-board-caption">
          Private board: the full-suite ranking at close, best first
        </caption>
        <thead>
          <tr>
            ${PRIVATE_COLUMNS.map(renderColumnHeader)}
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
              <td class="num score">
                <a href="${submissionPath(e.submissionId)}"
                  >${e.score}<span class="visually-hidden"
                    >: breakdown of the submission that counted for ${name}</span
                  ></a
                >${e.unrounded !== String(e.score) ? html`<span class="unrounded">${e.unrounded}</span>` : null}
              </td>
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
    </div>
  </section>`;
}
