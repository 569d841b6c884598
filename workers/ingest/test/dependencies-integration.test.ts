/**
 * The dependencies a submission brings, judged at upload (docs/dependencies.md): a challenge
 * that does not allow them refuses a root that declares any (and still takes a package.json
 * without dependencies, as the example submissions have); one that allows them reads the
 * lockfile under its policy. Every refusal is 422 problem+json listing each package and rule,
 * and leaves nothing behind: no row, no object, no message, no iteration.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import {
  call,
  createAgent,
  expectProblem,
  publishedChallenge,
  seedOperator,
  submissionForm,
  submit,
  tarGz,
  zip,
} from "./helpers.ts";

type Refusal = {
  package: string | null;
  rule: string;
  file: string;
  line?: number;
  detail: string;
};

// The example submissions' package.json (challenges/notes-api/submissions/complete).
const HONEST_PACKAGE_JSON = JSON.stringify(
  { name: "notes-api-submission", private: true, type: "module" },
  null,
  2,
);

/** npm's own lock of `{ hono: "4.x", zod: "4.x" }` (packages/dependencies/test/fixtures). */
const HONO_ZOD_MANIFEST = JSON.stringify({
  name: "lock-fixture",
  version: "1.0.0",
  private: true,
  dependencies: { hono: "4.x", zod: "4.x" },
});
const HONO_ZOD_LOCK = JSON.stringify({
  name: "lock-fixture",
  version: "1.0.0",
  lockfileVersion: 3,
  requires: true,
  packages: {
    "": { name: "lock-fixture", version: "1.0.0", dependencies: { hono: "4.x", zod: "4.x" } },
    "node_modules/hono": {
      version: "4.13.23",
      integrity:
        "sha512-OS90dj7dcsftEEWCOef8jRbnHE5lbrOq0hNRqjSyPsOnaGZvvfof1KS05hQNb4kUOCfDq1mG3PmHoX37DMnHQg==",
      license: "MIT",
    },
    "node_modules/zod": {
      version: "4.6.7",
      integrity:
        "sha512-g8W2D2kU6a8untc053fX1uVBKzM7yqAxW/3zwk83+6RyF2+SKOuV+c0wBDhUwzV1PaGapmZH+rmcUzPf+3CGwg==",
      license: "MIT",
    },
  },
});
const SRI = `sha512-${"A".repeat(86)}==`;

/** A lock of `deps` (name → version), each from the registry, each a direct dependency. */
function npmFiles(deps: Record<string, string>, entry: (name: string) => object = () => ({})) {
  const packages: Record<string, object> = {};
  for (const [name, version] of Object.entries(deps))
    packages[`node_modules/${name}`] = {
      version,
      resolved: `https://registry.npmjs.org/${name}/-/${name}-${version}.tgz`,
      integrity: SRI,
      ...entry(name),
    };
  return {
    "package.json": JSON.stringify({ name: "s", dependencies: deps }),
    "package-lock.json": JSON.stringify({
      lockfileVersion: 3,
      packages: { "": { name: "s", dependencies: deps }, ...packages },
    }),
  };
}

const REQUESTS =
  "requests==2.32.3 \\\n    --hash=sha256:70761cfe03c773ceb22aa2f671b4757976145175cdfca038c02654d061d6dcc6\n";

let counter = 0;
/** A small solution archive (.tar.gz) with `extra` files beside the code. */
function solution(extra: Record<string, string> = {}) {
  return tarGz({
    "src/index.js": `export const answer = ${++counter};\n`,
    "NOTES.md": "n",
    ...extra,
  });
}

/** An agent entered into a fresh published challenge whose manifest has `manifestExtra`. */
async function arena(manifestExtra: Record<string, unknown> = {}) {
  const op = await seedOperator();
  const agent = await createAgent(op.token);
  const slug = `c${crypto.randomUUID().slice(0, 8)}`;
  const id = await publishedChallenge(op.token, slug, { maxIterations: 20 }, manifestExtra);
  const entered = await call(`/v1/challenges/${id}/entries`, {
    method: "POST",
    token: agent.token,
  });
  expect(entered.status).toBe(201);
  return { agent, id };
}

const allowing = (
  submissions: Record<string, unknown> = {},
  more: Record<string, unknown> = {},
) => ({
  dependencies: { lockfile: null, submissions: { allowed: true, ...submissions }, ...more },
});
const PYTHON = { runtime: "python3.11", testFramework: "pytest" };

async function stored() {
  const row = await env.DB.prepare(
    "SELECT (SELECT COUNT(*) FROM submissions) AS subs, (SELECT COUNT(*) FROM idempotency_keys) AS idem",
  ).first<{ subs: number; idem: number }>();
  const objects = (await env.ARTIFACTS.list({ prefix: "artifacts/" })).objects.length;
  return { ...row, objects };
}

/** Submits `archive` and expects a 422 that stores nothing: no row, object, message. */
async function expectRefused(id: string, token: string, archive: Uint8Array) {
  const send = vi.spyOn(env.SUBMISSIONS, "send");
  const before = await stored();
  const res = await submit(id, token, submissionForm(archive));
  const body = await expectProblem(res, 422);
  expect(send).not.toHaveBeenCalled();
  expect(await stored()).toEqual(before);
  send.mockRestore();
  return body as typeof body & { rule: string; refusals: Refusal[] };
}

describe("a challenge that does not allow dependencies (the default)", () => {
  it("accepts the example submissions' package.json, which declares none", async () => {
    const { agent, id } = await arena();
    const res = await submit(
      id,
      agent.token,
      submissionForm(await solution({ "package.json": HONEST_PACKAGE_JSON })),
    );
    expect(res.status).toBe(202);
  });

  it("accepts a node_modules folder beside it, which the runner removes", async () => {
    const { agent, id } = await arena();
    const archive = await solution({
      "package.json": HONEST_PACKAGE_JSON,
      "node_modules/left-pad/index.js": "module.exports = () => 0;\n",
      "node_modules/left-pad/package.json": '{"name":"left-pad","dependencies":{"x":"1"}}',
    });
    expect((await submit(id, agent.token, submissionForm(archive))).status).toBe(202);
  });

  it("accepts a requirements.txt of comments only, and an empty package-lock.json", async () => {
    const { agent, id } = await arena();
    const archive = await solution({
      "requirements.txt": "# standard library only\n",
      "package.json": HONEST_PACKAGE_JSON,
      "package-lock.json": JSON.stringify({ lockfileVersion: 3, packages: { "": { name: "s" } } }),
    });
    expect((await submit(id, agent.token, submissionForm(archive))).status).toBe(202);
  });

  it("refuses a package.json with dependencies, naming the rule, and charges no iteration", async () => {
    const { agent, id } = await arena();
    const body = await expectRefused(
      id,
      agent.token,
      await solution(npmFiles({ hono: "4.13.23" })),
    );
    expect(body.type).toBe("urn:bouts:problem:dependencies-not-allowed");
    expect(body.rule).toBe("dependencies-not-allowed");
    expect(body.detail).toMatch(
      /does not allow submissions to add dependencies: package.json declares hono/,
    );
    expect(body.refusals).toEqual([
      {
        package: null,
        rule: "dependencies-not-allowed",
        file: "package.json",
        detail: "package.json declares hono",
      },
    ]);
    const next = await submit(id, agent.token, submissionForm(await solution()));
    expect((await next.json<{ iteration: number }>()).iteration).toBe(1);
  });

  it("refuses a requirements.txt and a uv.lock, in a zip and under one top-level folder", async () => {
    const { agent, id } = await arena();
    const req = await expectRefused(
      id,
      agent.token,
      zip({ "sol/main.js": "export {};\n", "sol/NOTES.md": "n", "sol/requirements.txt": REQUESTS }),
    );
    expect(req.refusals[0]).toMatchObject({
      file: "requirements.txt",
      rule: "dependencies-not-allowed",
    });
    const uv = await expectRefused(id, agent.token, await solution({ "uv.lock": "version = 1\n" }));
    expect(uv.refusals[0]).toMatchObject({ file: "uv.lock" });
  });

  it("reads only the root: a package.json deeper down is not the submission's", async () => {
    const { agent, id } = await arena();
    const archive = await solution({
      "src/vendor/package.json": JSON.stringify({ dependencies: { x: "1" } }),
    });
    expect((await submit(id, agent.token, submissionForm(archive))).status).toBe(202);
  });

  it("refuses a requirements.txt that is not UTF-8, without reading it as text", async () => {
    // (A package.json that is not UTF-8 is refused before, as source: archive-refused.)
    const { agent, id } = await arena();
    const bytes = new Uint8Array([0x72, 0x65, 0x71, 0xff, 0xfe, 0x0a]);
    const body = await expectRefused(
      id,
      agent.token,
      await tarGz({ "main.js": "export {};\n", "requirements.txt": bytes }),
    );
    expect(body.type).toBe("urn:bouts:problem:dependencies-refused");
    expect(body.refusals).toEqual([
      {
        package: null,
        rule: "unreadable",
        file: "requirements.txt",
        detail: "requirements.txt is not UTF-8 text",
      },
    ]);
  });

  it("refuses a dependency file over the byte bound, counting every byte of it", async () => {
    const { agent, id } = await arena();
    // Letters that do not compress (the validator refuses an archive that inflates 200-fold).
    let seed = 1;
    const noise = Array.from({ length: 2 * 1024 * 1024 }, () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return String.fromCharCode(97 + (seed % 26));
    }).join("");
    const huge = `# ${noise}\n`;
    const body = await expectRefused(id, agent.token, await solution({ "requirements.txt": huge }));
    expect(body.refusals[0]).toMatchObject({ rule: "too-large", file: "requirements.txt" });
    expect(body.refusals[0]!.detail).toBe(
      `requirements.txt is ${huge.length} bytes; at most 2097152 are read`,
    );
  });
});

describe("a challenge that allows dependencies", () => {
  it("accepts npm's own lock of hono and zod", async () => {
    const { agent, id } = await arena(allowing());
    const archive = await solution({
      "package.json": HONO_ZOD_MANIFEST,
      "package-lock.json": HONO_ZOD_LOCK,
    });
    expect((await submit(id, agent.token, submissionForm(archive))).status).toBe(202);
  });

  it("still accepts a submission without dependencies", async () => {
    const { agent, id } = await arena(allowing());
    const archive = await solution({ "package.json": HONEST_PACKAGE_JSON });
    expect((await submit(id, agent.token, submissionForm(archive))).status).toBe(202);
  });

  it("refuses with every refusal listed, each naming its package and rule", async () => {
    const { agent, id } = await arena(allowing());
    const files = npmFiles({ expresss: "4.0.0", hono: "4.1.0" }, (name) =>
      name === "hono" ? { resolved: "https://evil.test/hono-4.1.0.tgz" } : {},
    );
    const body = await expectRefused(id, agent.token, await solution(files));
    expect(body.type).toBe("urn:bouts:problem:dependencies-refused");
    expect(body.refusals.map((r) => [r.package, r.rule])).toEqual([
      ["expresss", "typosquat"],
      ["hono", "non-registry-source"],
    ]);
    expect(body.detail).toMatch(
      /^The submission's dependencies were refused: typosquat package-lock.json expresss: .* \(and 1 more: see refusals\)$/,
    );
    expect(body.refusals[1]!.detail).toMatch(/https:\/\/evil.test\/hono-4.1.0.tgz/);
  });

  it("replays a refusal under its Idempotency-Key, byte for byte", async () => {
    const { agent, id } = await arena(allowing());
    const archive = await solution(npmFiles({ expresss: "4.0.0" }));
    const first = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "deps-1",
    });
    const again = await submit(id, agent.token, submissionForm(archive), {
      "Idempotency-Key": "deps-1",
    });
    expect(first.status).toBe(422);
    expect(again.status).toBe(422);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.text()).toBe(await first.text());
  });

  it("holds the lock to the challenge's maxPackages", async () => {
    const { agent, id } = await arena(allowing({ maxPackages: 1 }));
    const body = await expectRefused(
      id,
      agent.token,
      await solution(npmFiles({ hono: "4.1.0", zod: "4.0.0" })),
    );
    expect(body.refusals).toEqual([
      expect.objectContaining({
        rule: "too-many-packages",
        package: null,
        file: "package-lock.json",
      }),
    ]);
  });

  it("accepts a name on the challenge's allowNames", async () => {
    const { agent, id } = await arena(allowing({}, { allowNames: ["expresss"] }));
    const archive = await solution(npmFiles({ expresss: "4.0.0" }));
    expect((await submit(id, agent.token, submissionForm(archive))).status).toBe(202);
  });

  it("refuses a manifest without its lock, and a Python lockfile on a Node challenge", async () => {
    const { agent, id } = await arena(allowing());
    const noLock = await expectRefused(
      id,
      agent.token,
      await solution({ "package.json": HONO_ZOD_MANIFEST }),
    );
    expect(noLock.refusals[0]).toMatchObject({ rule: "missing-lockfile", file: "package.json" });
    const python = await expectRefused(
      id,
      agent.token,
      await solution({ "requirements.txt": REQUESTS }),
    );
    expect(python.refusals[0]).toMatchObject({ rule: "wrong-ecosystem", file: "requirements.txt" });
  });

  it("lists at most fifty refusals and says how many more there are", async () => {
    const { agent, id } = await arena(allowing({ maxPackages: 100 }));
    const deps = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`zz-pkg-${i}`, "1.0.0"]));
    const files = npmFiles(deps, () => ({ integrity: undefined }));
    const body = await expectRefused(id, agent.token, await solution(files));
    expect(body.refusals).toHaveLength(50);
    expect(body.refusals.every((r) => r.rule === "missing-integrity")).toBe(true);
    expect(body.detail).toMatch(/\(and 59 more: see refusals\); 10 refusals are not listed$/);
  });

  it("reads a Python challenge's hashed requirements.txt, and names the line it refuses", async () => {
    const { agent, id } = await arena({ ...PYTHON, ...allowing() });
    const ok = await submit(
      id,
      agent.token,
      submissionForm(await solution({ "requirements.txt": REQUESTS })),
    );
    expect(ok.status).toBe(202);
    const body = await expectRefused(
      id,
      agent.token,
      await solution({ "requirements.txt": `${REQUESTS}idna>=3\n` }),
    );
    expect(body.refusals).toEqual([
      expect.objectContaining({ package: "idna", rule: "inexact-version", line: 3 }),
      expect.objectContaining({ package: "idna", rule: "missing-integrity", line: 3 }),
    ]);
  });
});
