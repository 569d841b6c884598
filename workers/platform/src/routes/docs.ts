/**
 * @module platform/routes/docs
 * The interactive API docs (docs/design.md §37): `/docs` is Swagger UI over `/openapi.json`,
 * and every file the page loads is served by this Worker from the pinned `swagger-ui-dist`
 * package, bundled as Text modules (wrangler.toml `[[rules]]`). Invariants: the page names
 * only same-origin URLs, and its Content-Security-Policy allows no other origin and no inline
 * script or style, so a page that tried to reach a CDN would be refused by the browser; the
 * package's files sit under a path carrying its version, so they can be cached for good.
 */
import { Hono } from "hono";
import swaggerUiBundle from "swagger-ui-dist/swagger-ui-bundle.js";
import swaggerUiBundleLicense from "swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt";
import swaggerUiCss from "swagger-ui-dist/swagger-ui.css";
import { version as SWAGGER_UI_VERSION } from "swagger-ui-dist/package.json";

export { SWAGGER_UI_VERSION };

/** Where the package's files are served: the version in the path makes them immutable. */
export const SWAGGER_UI_BASE = `/docs/swagger-ui/${SWAGGER_UI_VERSION}`;

/**
 * Content-Security-Policy of `/docs`. Beyond the pages' policy, images may be `data:` URLs:
 * Swagger UI's stylesheet draws its icons with them (no request leaves the page). No inline
 * style either: Swagger UI sets styles through the CSSOM, which the policy permits.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": DOCS_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
};

/** The versioned files: a new package version is a new URL, so browsers keep these a year. */
const IMMUTABLE = "public, max-age=31536000, immutable";
/** The page and its start script change with a deploy: a short lifetime. */
const SHORT = "public, max-age=300";

// The start script is a file of its own, so the policy needs no inline script. The validator
// badge is off: by default Swagger UI asks validator.swagger.io about every public document.
const START_SCRIPT = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  validatorUrl: null,
});
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Bouts API</title>
    <link rel="stylesheet" href="${SWAGGER_UI_BASE}/swagger-ui.css">
    <script src="${SWAGGER_UI_BASE}/swagger-ui-bundle.js" defer></script>
    <script src="/docs/start.js" defer></script>
  </head>
  <body>
    <div id="swagger-ui"></div>
    <noscript>
      The interactive docs need JavaScript; the contract itself is
      <a href="/openapi.json">/openapi.json</a>.
    </noscript>
  </body>
</html>
`;

/** The docs routes: the page, its start script and the package's files. */
export function createDocsRoutes() {
  const app = new Hono();
  const send = (
    body: string,
    type: string,
    cacheControl: string,
    headers: Record<string, string> = {},
  ) =>
    new Response(body, {
      headers: {
        "Content-Type": type,
        "Cache-Control": cacheControl,
        "X-Content-Type-Options": "nosniff",
        ...headers,
      },
    });
  app.get("/docs", () => send(PAGE, "text/html; charset=utf-8", SHORT, SECURITY_HEADERS));
  app.get("/docs/start.js", () => send(START_SCRIPT, "text/javascript; charset=utf-8", SHORT));
  app.get(`${SWAGGER_UI_BASE}/swagger-ui-bundle.js`, () =>
    send(swaggerUiBundle, "text/javascript; charset=utf-8", IMMUTABLE),
  );
  app.get(`${SWAGGER_UI_BASE}/swagger-ui.css`, () =>
    send(swaggerUiCss, "text/css; charset=utf-8", IMMUTABLE),
  );
  // The bundle's first line names this file, for the licenses of what it bundles.
  app.get(`${SWAGGER_UI_BASE}/swagger-ui-bundle.js.LICENSE.txt`, () =>
    send(swaggerUiBundleLicense, "text/plain; charset=utf-8", IMMUTABLE),
  );
  return app;
}
