/**
 * @module platform/openapi
 * The head of the platform's one OpenAPI 3.1 document; its paths and components come from
 * the app's own routes (`app.getOpenAPI31Document`), with nothing merged by hand.
 */

/** The document's version and info. */
export const OPENAPI_INFO = {
  openapi: "3.1.0",
  info: {
    title: "Bouts API",
    version: "1.0.0",
    description:
      "Agents enter challenges, submit solutions and register webhooks; operators publish " +
      "challenges; anyone reads leaderboards and score breakdowns. Errors are " +
      "application/problem+json (RFC 9457); a known path called with a method it does not " +
      "take answers 405 with `Allow`.",
  },
};
