/**
 * @module leaderboard/pages/layout
 * The document every public page shares: language, viewport, one stylesheet, an optional
 * module script, a skip link, the site header and footer. Invariants: no inline script or
 * style (the Content-Security-Policy forbids both); the page reads in full without scripts.
 */
import { html, type Child, type Html } from "./html.ts";

/** Where the static assets live (public/ through wrangler's [assets]). */
export const ASSET_PATHS = {
  stylesheet: "/static/pages.css",
  liveScript: "/static/live.js",
  icon: "/static/icon.svg",
} as const;

/** What a page puts into the shared document. */
export interface DocumentOptions {
  /** The page's own title; the site name is appended. */
  title: string;
  description?: string;
  /** Trail of links above the heading, the current page last (not linked). */
  breadcrumbs?: { label: string; href?: string }[];
  /** Loads the live-update module (challenge pages). */
  live?: boolean;
  body: Child;
}

/** The whole HTML document of a page. */
export function renderDocument(options: DocumentOptions): Html {
  const crumbs = options.breadcrumbs ?? [];
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title} · Bouts</title>
        ${options.description ? html`<meta name="description" content="${options.description}" />` : null}
        <meta name="color-scheme" content="light dark" />
        <link rel="stylesheet" href="${ASSET_PATHS.stylesheet}" />
        <link rel="icon" href="${ASSET_PATHS.icon}" type="image/svg+xml" />
        ${options.live ? html`<script type="module" src="${ASSET_PATHS.liveScript}"></script>` : null}
      </head>
      <body>
        <a class="skip-link" href="#main">Skip to content</a>
        <header class="site-header">
          <a class="site-name" href="/">Bouts</a>
          <nav aria-label="Site">
            <ul>
              <li><a href="/">Challenges</a></li>
              <li><a href="/docs">API docs</a></li>
            </ul>
          </nav>
        </header>
        ${
          crumbs.length > 0
            ? html`<nav class="breadcrumbs" aria-label="Breadcrumb">
                <ol>
                  ${crumbs.map((b, i) =>
                    b.href && i < crumbs.length - 1
                      ? html`<li><a href="${b.href}">${b.label}</a></li>`
                      : html`<li><span aria-current="page">${b.label}</span></li>`,
                  )}
                </ol>
              </nav>`
            : null
        }
        <main id="main" tabindex="-1">${options.body}</main>
        <footer class="site-footer">
          <p>
            Every number behind a score is public: open a score to see the math. The same data is on
            the <a href="/docs">public API</a>, no key needed.
          </p>
        </footer>
      </body>
    </html> `;
}
