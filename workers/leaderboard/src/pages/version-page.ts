/**
 * @module leaderboard/pages/version-page
 * The operator's page of a candidate challenge version's diff report
 * (`/challenges/{id}/versions/{version}`, docs/design.md §30): the same report as
 * `GET /v1/challenges/{id}/versions/{version}/diff` (the ingest role's; both build it with
 * `buildDiffReport` of @bouts/db), as a table per agent and per baseline; the promote or discard
 * call it offers is the ingest role's too.
 * Invariants: only the owning operator reads it — the browser sends the operator key as the
 * password of HTTP Basic authentication (no cookie, no key in the URL), anything else is 401 or
 * 404 — because the report names hidden tests; it is never cached (`private, no-store`).
 */
import { resolveCaller } from "@bouts/auth";
import { buildDiffReport, createDb, findChallenge, findVersion, type DiffReport } from "@bouts/db";
import { fail } from "../errors.ts";
import { html, type Html } from "./html.ts";
import { renderDocument } from "./layout.ts";

/** The realm a browser shows when it asks for the operator key. */
export const OPERATOR_REALM = 'Basic realm="Bouts operators", charset="UTF-8"';

/**
 * The operator behind an HTTP Basic `Authorization` header whose password is an operator key
 * (the user name is ignored); null for none, a bad header or another role's key.
 */
export async function readBasicOperator(
  d1: D1Database,
  header: string | undefined,
): Promise<string | null> {
  if (!header?.startsWith("Basic ")) return null;
  let decoded: string;
  try {
    decoded = atob(header.slice(6).trim());
  } catch {
    return null;
  }
  const password = decoded.slice(decoded.indexOf(":") + 1);
  if (!password) return null;
  const caller = await resolveCaller(d1, `Bearer ${password}`);
  return caller.ok && caller.value.role === "operator" ? caller.value.operatorId : null;
}

/** Reads the report for the page: 404 unless the operator owns the challenge and the version. */
export async function readVersionReport(
  d1: D1Database,
  operatorId: string,
  challengeId: string,
  version: number,
): Promise<{ title: string; slug: string; report: DiffReport }> {
  const db = createDb(d1);
  const ch = await findChallenge(db, challengeId);
  if (!ch || ch.createdBy !== operatorId) fail({ reason: "not-found", resource: "challenge" });
  const v = await findVersion(db, ch.id, version);
  if (!v) fail({ reason: "not-found", resource: "challenge version" });
  return { title: ch.title, slug: ch.slug, report: await buildDiffReport(db, ch, v) };
}

const scoreText = (s: { score: number; unrounded: string } | null) =>
  s ? html`${s.score} <small>(${s.unrounded})</small>` : html`–`;

function renderSubmissions(subs: DiffReport["agents"][number]["submissions"]): Html {
  return html`${subs.map(
    (s) =>
      html`<li>
        <code>${s.submissionId}</code>: ${scoreText(s.before)} → ${scoreText(s.after)}
        ${s.state === "scored" ? null : html` <strong>${s.state}</strong>`}
        ${s.error ? html` (${s.error})` : null}
        ${
          s.changedTests.length > 0
            ? html`<ul>
                ${s.changedTests.map(
                  (t) =>
                    html`<li>
                      ${t.suite} <code>${t.id}</code> “${t.name}”: ${t.before ?? "new"} →
                      ${t.after ?? "removed"}
                    </li>`,
                )}
              </ul>`
            : html` no verdict changed`
        }
      </li>`,
  )}`;
}

/**
 * What the version's state leaves to do: only a pending version (rescoring, ready) is offered a
 * decision, and only the one the API would accept; a promoted, discarded or refused version says
 * what it is and offers none.
 */
function renderNextStep(r: DiffReport): Html {
  const route = `/v1/challenges/${r.challengeId}/versions/${r.version}`;
  const discard = html`<code>POST ${route}/discard</code>`;
  switch (r.state) {
    case "rescoring":
      return html`<p class="version-next">
        Still rescoring: it can be promoted once every rescore has settled, or discarded now with
        ${discard} and a reason.
      </p>`;
    case "ready":
      return r.rescores.failed > 0
        ? html`<p class="version-next">
            ${r.rescores.failed} rescore(s) failed, so this version cannot be promoted: discard it
            with ${discard} and a reason, or fix the bundle and upload another version.
          </p>`
        : html`<p class="version-next">
            Ready: promote or discard with <code>POST ${route}/promote</code> (or
            <code>/discard</code>) and a reason.
          </p>`;
    case "promoted":
      return html`<p class="version-state">
        Promoted:
        ${
          r.liveVersion === r.version
            ? "this version is live; its scores are the board's."
            : `it was live until version ${r.liveVersion} replaced it.`
        }
        Nothing is left to decide.
      </p>`;
    case "discarded":
      return html`<p class="version-state">
        Discarded: this version never went live and its rescores changed nothing; version
        ${r.liveVersion} is live. Nothing is left to decide.
      </p>`;
    case "qa-failed":
      return html`<p class="version-state">
        Refused by QA: this bundle cannot be promoted and was never rescored. Upload a fixed bundle
        as a new version.
      </p>`;
  }
}

/** The whole page. */
export function renderVersionPage(v: { title: string; slug: string; report: DiffReport }): Html {
  const r = v.report;
  const place = (p: { rank: number; score: number } | null) =>
    p ? `#${p.rank} (${p.score})` : "–";
  return renderDocument({
    title: `${v.title}: version ${r.version}`,
    breadcrumbs: [
      { label: "Challenges", href: "/" },
      { label: v.title, href: `/challenges/${encodeURIComponent(v.slug)}` },
      { label: `Version ${r.version}` },
    ],
    body: html`<h1>${v.title}: version ${r.version} (${r.state})</h1>
      <p>
        Rescored against version ${r.baseVersion}; version ${r.liveVersion} is live.
        ${r.note ? html`Note: ${r.note}.` : null}
      </p>
      <p>
        Rescores: ${r.rescores.scored} scored, ${r.rescores.failed} failed,
        ${r.rescores.queued + r.rescores.running} pending, of ${r.rescores.total}.
      </p>
      <table>
        <caption>
          Each agent's place on the live board and on the board this version would publish
        </caption>
        <thead>
          <tr>
            <th scope="col">Agent</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
            <th scope="col">Change</th>
            <th scope="col">Rescored submissions</th>
          </tr>
        </thead>
        <tbody>
          ${r.agents.map(
            (a) =>
              html`<tr>
                <th scope="row">${a.name}</th>
                <td>${place(a.before)}</td>
                <td>${place(a.after)}</td>
                <td>
                  ${a.rankChange === null ? "–" : a.rankChange > 0 ? `▲ ${a.rankChange}` : a.rankChange < 0 ? `▼ ${-a.rankChange}` : "="}
                </td>
                <td>
                  <ul>
                    ${renderSubmissions(a.submissions)}
                  </ul>
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${
        r.baselines.length > 0
          ? html`<h2>Baselines</h2>
              <ul>
                ${r.baselines.map(
                  (b) =>
                    html`<li>
                      ${b.label}
                      <ul>
                        ${renderSubmissions(b.submissions)}
                      </ul>
                    </li>`,
                )}
              </ul>`
          : null
      }
      ${renderNextStep(r)}`,
  });
}
