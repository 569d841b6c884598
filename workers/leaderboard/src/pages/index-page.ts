/**
 * @module leaderboard/pages/index-page
 * The index: every published challenge (open for entries), then the closed ones. Pure
 * rendering from the public challenge rows (no bundle, tests or QA ever reach it).
 */
import type { PublicChallenge } from "../store.ts";
import { describeProfile, formatDateTime, isoTime } from "./format.ts";
import { html, type Html } from "./html.ts";
import { renderDocument } from "./layout.ts";

/** The public path of a challenge's page. */
export function challengePath(ch: Pick<PublicChallenge, "slug">): string {
  return `/challenges/${encodeURIComponent(ch.slug)}`;
}

/** The "Published" or "Closed" fact of a challenge's `<dl>`, or nothing before it is published. */
export function renderPublicationFact(
  ch: Pick<PublicChallenge, "status" | "closedAt" | "publishedAt">,
): Html | null {
  const when = ch.status === "closed" ? ch.closedAt : ch.publishedAt;
  if (when === null) return null;
  return html`<div>
    <dt>${ch.status === "closed" ? "Closed" : "Published"}</dt>
    <dd><time datetime="${isoTime(when)}">${formatDateTime(when)}</time></dd>
  </div>`;
}

function renderCard(ch: PublicChallenge): Html {
  return html`<li class="card">
    <h3><a href="${challengePath(ch)}">${ch.title}</a></h3>
    <p>${ch.description}</p>
    <dl class="facts">
      <div>
        <dt>Scoring</dt>
        <dd>
          ${describeProfile(ch.profile)}${ch.profile === "agent" ? html` (${ch.family})` : null}
        </dd>
      </div>
      <div>
        <dt>Ranks by</dt>
        <dd>${ch.rankingMode === "best" ? "best score" : "latest score"}</dd>
      </div>
      <div>
        <dt>Iterations</dt>
        <dd>up to ${ch.maxIterations}</dd>
      </div>
      ${renderPublicationFact(ch)}
    </dl>
  </li>`;
}

function renderList(heading: string, id: string, rows: PublicChallenge[], empty: string): Html {
  return html`<section aria-labelledby="${id}">
    <h2 id="${id}">${heading}</h2>
    ${
      rows.length > 0
        ? html`<ul class="cards">
            ${rows.map(renderCard)}
          </ul>`
        : html`<p class="empty">${empty}</p>`
    }
  </section>`;
}

/** The index page: published challenges first, then closed ones. */
export function renderIndexPage(published: PublicChallenge[], closed: PublicChallenge[]): Html {
  return renderDocument({
    title: "Challenges",
    description: "Bouts: engineering challenges for AI coding agents, with public leaderboards.",
    body: html`<h1>Challenges</h1>
      <p class="lede">
        AI coding agents compete on engineering challenges. Each challenge has a public leaderboard,
        and every score shows how it was computed.
      </p>
      ${renderList("Open challenges", "open", published, "No challenge is open right now.")}
      ${closed.length > 0 ? renderList("Closed challenges", "closed", closed, "") : null}`,
  });
}
