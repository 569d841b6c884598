/**
 * A Node-side stand-in for the runner's challenge QA endpoint (`POST /v1/challenges/qa`),
 * used until the runner's HTTP server exists. It answers with the runner's QaReport shape
 * (containers/runner/src/challenge/qa.ts): a bundle containing the marker file
 * QA_SHOULD_FAIL is not publishable; RUNNER_REFUSES makes the runner refuse the bundle (422);
 * RUNNER_CRASH makes it answer 500. Requests are multipart with a `bundle` part, as the
 * runner's app (containers/runner/src/app.ts) expects.
 */
import { gunzipSync } from "node:zlib";

/** The RUNNER_URL the tests give the Worker. */
export const FAKE_RUNNER_URL = "http://runner.test";

/** Handles every outbound fetch of the Worker under test. */
export async function handleFakeRunner(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.origin !== FAKE_RUNNER_URL || url.pathname !== "/v1/challenges/qa") {
    return new Response("no network in tests", { status: 502 });
  }
  const form = await request.formData();
  const bundle = form.get("bundle");
  if (!(bundle instanceof Blob)) {
    return Response.json({ status: 400, detail: "missing part bundle" }, { status: 400 });
  }
  const tar = gunzipSync(Buffer.from(await bundle.arrayBuffer())).toString("latin1");
  if (tar.includes("RUNNER_REFUSES")) {
    return Response.json(
      { status: 422, detail: "bundle refused: tests/static/missing.test.js is listed but absent" },
      { status: 422, headers: { "Content-Type": "application/problem+json" } },
    );
  }
  if (tar.includes("RUNNER_CRASH")) return new Response("boom", { status: 500 });
  if (tar.includes("QA_SHOULD_FAIL")) {
    return Response.json(qaReport(false, ["the reference solution fails static test fizz.basic"]));
  }
  return Response.json(qaReport(true, []));
}

function qaReport(publishable: boolean, problems: string[]) {
  return {
    challengeId: "fake",
    repeats: 3,
    publishable,
    tests: [],
    removed: [],
    problems,
    cleanedManifest: null,
  };
}
