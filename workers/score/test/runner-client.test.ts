/**
 * How the score role reads the runner's refusals (docs/runner.md, "POST /v1/runs"): the
 * problem `type` is the platform's `urn:bouts:problem:<code>`; only `artifact-integrity` is an
 * integrity failure, any other 422 or 413 a refused archive, each with the runner's `detail`.
 */
import { buildProblem } from "@bouts/contracts";
import { describe, expect, it } from "vitest";
import { requestRun, type RunnerEnv } from "../src/runner-client.ts";

function answering(response: () => Response): RunnerEnv {
  const fetch = () => Promise.resolve(response());
  return { RUNNER_URL: "", RUNNER_HTTP: { fetch } as unknown as Fetcher };
}

const run = { runId: "refused-1", submission: new Uint8Array([1]), bundle: new Uint8Array([2]) };

describe("the runner's refusals", () => {
  it("reads an artifact-integrity problem as an integrity refusal", async () => {
    const problem = buildProblem(
      422,
      "artifact-integrity",
      "Archive is not the one uploaded",
      "the submission's sha256 is aa, not the bb recorded at upload; it was not run",
    );
    const r = await requestRun(
      answering(() => Response.json(problem, { status: 422 })),
      run,
    );
    expect(r).toEqual({
      ok: false,
      error: {
        reason: "submission-refused",
        retryable: false,
        code: "artifact-integrity",
        detail: problem.detail,
      },
    });
  });

  it("reads any other refusal as a refused archive, with the runner's detail", async () => {
    const problem = buildProblem(
      422,
      "submission-rejected",
      "Submission archive refused",
      'unsafe-path "../x": the path leaves the archive',
      { rule: "unsafe-path", entry: "../x" },
    );
    const r = await requestRun(
      answering(() => Response.json(problem, { status: 422 })),
      run,
    );
    expect(!r.ok && r.error).toMatchObject({ code: "archive-refused", detail: problem.detail });
  });
});
