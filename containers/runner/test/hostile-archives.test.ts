/**
 * Every archive of the hostile corpus (@bouts/fixtures) posted to the runner
 * service as a submission: each is refused with 422 naming the rule (and the entry when there
 * is one), no challenge test runs, and the service still answers /healthz after every one.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Hono } from "hono";
import { RunnerProblemSchema } from "@bouts/contracts";
import { createRunnerApp } from "../src/app.ts";
import { packChallengeDir } from "../src/challenge/bundle.ts";
import { createTestEnvironment, FIXTURES, form } from "./helpers.ts";
import { buildCorpus, buildTarGz, buildZip } from "@bouts/fixtures";

let app: Hono;
let bundle: Buffer;

beforeAll(async () => {
  const environment = await createTestEnvironment({ RUNNER_SELF_TEST: "off" });
  app = createRunnerApp(environment, null);
  bundle = await packChallengeDir(path.join(FIXTURES, "exploit-node"));
}, 60_000);

describe("the runner service under hostile archives", () => {
  for (const c of buildCorpus()) {
    it(`refuses ${c.name} with 422 and stays healthy`, async () => {
      const submission = await c.build();
      const res = await app.request("/v1/runs", {
        method: "POST",
        body: form({ job: '{"runId":"hostile"}', submission, bundle }),
      });
      const body = RunnerProblemSchema.parse(await res.json());
      expect(res.status).toBe(422);
      expect(body.type).toBe("urn:bouts:problem:submission-rejected");
      expect(body.rule).toBe(c.refusal!.reason);
      if (c.refusal!.entry !== undefined) {
        expect(body.detail).toContain(JSON.stringify(c.refusal!.entry));
        expect(body.entry).toBe(c.refusal!.entry);
      }
      const health = await app.request("/healthz");
      expect(health.status).toBe(200);
    }, 30_000);
  }
});

describe("valid archives with nothing the challenge can run", () => {
  const post = (submission: Buffer) =>
    app.request("/v1/runs", {
      method: "POST",
      body: form({ job: '{"runId":"nothing"}', submission, bundle }),
    });
  const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]);

  it("refuses gzip-signed junk rather than scoring it", async () => {
    const res = await post(Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from("junk junk")]));
    expect(res.status).toBe(422);
  });

  it.each([
    ["tar.gz", () => buildTarGz([{ name: "NOTES.md", data: "done" }])],
    // (src/ is not unwrapped: NOTES.md sits beside it at the root.)
    [
      "zip",
      () =>
        buildZip([
          { name: "src/solution.mjs", data: "export const add = 1;" },
          { name: "NOTES.md", data: "done" },
        ]),
    ],
  ])("refuses a %s without the module the challenge loads, naming it", async (_f, build) => {
    const res = await post(build());
    const body = RunnerProblemSchema.parse(await res.json());
    expect(res.status).toBe(422);
    expect(body.rule).toBe("nothing-to-load");
    expect(body.entry).toBe("solution.mjs");
    expect(body.detail).toContain('"solution.mjs"');
  });

  it("refuses code no scanner can read under an innocent name, as ingest does", async () => {
    const res = await post(
      buildZip([
        { name: "solution.mjs", data: "export const add = (a, b) => a + b;" },
        { name: "README.md", data: ELF },
      ]),
    );
    expect(res.status).toBe(422);
    const body = RunnerProblemSchema.parse(await res.json());
    expect(body.rule).toBe("unscannable-code");
    expect(body.entry).toBe("README.md");
  });
});

describe("artifact integrity", () => {
  const solution = () =>
    buildTarGz([{ name: "solution.mjs", data: "export const add = (a, b) => a + b;\n" }]);
  const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

  it("refuses bytes other than those recorded at upload, without running them", async () => {
    const submission = solution();
    const recorded = sha256(Buffer.concat([submission, Buffer.from("x")]));
    const res = await app.request("/v1/runs", {
      method: "POST",
      body: form({
        job: JSON.stringify({ runId: "swapped", submissionSha256: recorded }),
        submission,
        bundle,
      }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { type: string; detail: string };
    expect(body.type).toBe("urn:bouts:problem:artifact-integrity");
    expect(body.detail).toContain(recorded);
    expect(body.detail).toContain(sha256(submission));
  });

  it("refuses a malformed recorded sha256 as an invalid job", async () => {
    const res = await app.request("/v1/runs", {
      method: "POST",
      body: form({
        job: JSON.stringify({ runId: "bad-sha", submissionSha256: "abc" }),
        submission: solution(),
        bundle,
      }),
    });
    expect(res.status).toBe(400);
  });
});
