/**
 * Every archive of @bouts/archive's hostile corpus, submitted through the ingest route: each
 * is refused with 422 naming the rule and the entry, and nothing reaches D1, R2 or the queue.
 * The same archives go through the runner service in containers/runner/test.
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

type Case = { name: string; refusal: { reason: string; entry?: string }; base64: string };
const CORPUS = JSON.parse(env.TEST_HOSTILE_ARCHIVES) as Case[];

// A bomb is refused by whichever cap its output passes first. Node's DecompressionStream
// applies backpressure to each fed piece, so the ratio trips first there; workerd's takes the
// compressed input faster, so the declared size or the expanded total may trip first. Either
// way nothing is stored, and the output is never held.
const BOMB_RULES = ["ratio-exceeded", "too-large-expanded", "size-mismatch"];
const sameRule = (expected: string, actual: unknown) =>
  BOMB_RULES.includes(expected) ? BOMB_RULES.includes(actual as string) : actual === expected;

const bytesOf = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

async function stored() {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM submissions").first<{ n: number }>();
  const objects = (await env.ARTIFACTS.list({ prefix: "artifacts/" })).objects.length;
  return { rows: row!.n, objects };
}

describe("hostile archives at upload", () => {
  it("has the whole corpus: both formats, bombs, links and malformed containers", () => {
    expect(CORPUS.length).toBeGreaterThan(100);
    const reasons = new Set(CORPUS.map((c) => c.refusal.reason));
    for (const r of ["name-too-long", "ratio-exceeded", "link-entry", "checksum-mismatch"])
      expect(reasons).toContain(r);
  });

  it("refuses each with 422 naming the rule and the entry, and stores or queues nothing", async () => {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    const id = await publishedChallenge(op.token, `c${crypto.randomUUID().slice(0, 8)}`, {
      maxIterations: 1000,
    });
    await call(`/v1/challenges/${id}/entries`, { method: "POST", token: agent.token });
    // The corpus is larger than the per-agent submit rate limit (30 a minute).
    const limit = vi.spyOn(env.SUBMIT_RATE_LIMIT, "limit").mockResolvedValue({ success: true });
    const send = vi.spyOn(env.SUBMISSIONS, "send");
    const before = await stored();
    for (const c of CORPUS) {
      const res = await submit(id, agent.token, submissionForm(bytesOf(c.base64)));
      // Neither signature: not an archive at all, so the media type is what is refused.
      if (c.refusal.reason === "unknown-format") {
        await expectProblem(res, 415);
        continue;
      }
      const body = await expectProblem(res, 422);
      expect(sameRule(c.refusal.reason, body.rule), `${c.name}: ${String(body.rule)}`).toBe(true);
      // (A bomb's refusal names the entry being inflated when its cap tripped.)
      if (c.refusal.entry !== undefined && !BOMB_RULES.includes(c.refusal.reason)) {
        expect(body.entry, c.name).toBe(c.refusal.entry);
        expect(body.detail, c.name).toContain(JSON.stringify(c.refusal.entry));
      }
    }
    expect(send).not.toHaveBeenCalled();
    expect(await stored()).toEqual(before);
    send.mockRestore();
    limit.mockRestore();
  }, 120_000);
});

describe("archives with nothing the runner would run", () => {
  /** A published challenge whose interface loads merge.mjs, and an agent entered in it. */
  async function moduleChallenge() {
    const op = await seedOperator();
    const agent = await createAgent(op.token);
    const id = await publishedChallenge(op.token, `c${crypto.randomUUID().slice(0, 8)}`, {
      maxIterations: 20,
    });
    const iface = {
      kind: "module",
      module: "merge.mjs",
      functions: [{ name: "deepMerge", params: [], invalidInputError: "TypeError" }],
    };
    await env.DB.prepare(
      "UPDATE challenges SET bundle_manifest = json_set(bundle_manifest, '$.interface', json(?)) WHERE id = ?",
    )
      .bind(JSON.stringify(iface), id)
      .run();
    await call(`/v1/challenges/${id}/entries`, { method: "POST", token: agent.token });
    return { id, token: agent.token };
  }
  const ELF = String.fromCharCode(0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0);

  it("refuses gzip-signed junk, which used to be stored, run and scored 10", async () => {
    const { id, token } = await moduleChallenge();
    const junk = new Uint8Array([0x1f, 0x8b, ...new TextEncoder().encode("not a tar at all")]);
    const before = await stored();
    const body = await expectProblem(await submit(id, token, submissionForm(junk)), 422);
    expect(body.type).toBe("urn:bouts:problem:archive-refused");
    expect(await stored()).toEqual(before);
  });

  it("refuses an archive without the module the challenge loads, naming it", async () => {
    const { id, token } = await moduleChallenge();
    const before = await stored();
    const res = await submit(id, token, submissionForm(await tarGz({ "NOTES.md": "all done" })));
    const body = await expectProblem(res, 422);
    expect(body).toMatchObject({ rule: "nothing-to-load", entry: "merge.mjs" });
    expect(await stored()).toEqual(before);
  });

  it("accepts the module at the root or in a single top-level folder, in either format", async () => {
    const { id, token } = await moduleChallenge();
    const code = "export function deepMerge(a, b) { return { ...a, ...b }; }\n";
    for (const archive of [
      await tarGz({ "merge.mjs": code }),
      await tarGz({ "solution/merge.mjs": code, "solution/NOTES.md": "n" }),
      zip({ "merge.mjs": code, "node_modules/x/addon.node": ELF }),
    ])
      expect((await submit(id, token, submissionForm(archive))).status).toBe(202);
  });

  it("refuses code no scanner can read, by name or by content, naming the entry", async () => {
    const { id, token } = await moduleChallenge();
    const code = "export const deepMerge = () => ({});\n";
    const byName = await submit(
      id,
      token,
      submissionForm(await tarGz({ "merge.mjs": code, "lib/fast.node": "x" })),
    );
    expect(await expectProblem(byName, 422)).toMatchObject({
      rule: "unscannable-code",
      entry: "lib/fast.node",
    });
    const byContent = await submit(
      id,
      token,
      submissionForm(zip({ "merge.mjs": code, "docs/README.md": ELF })),
    );
    expect(await expectProblem(byContent, 422)).toMatchObject({
      rule: "unscannable-code",
      entry: "docs/README.md",
    });
  });

  it("refuses source an interpreter decodes otherwise than the scanners, naming the rule", async () => {
    const { id, token } = await moduleChallenge();
    const code = "export const deepMerge = () => ({});\n";
    const before = await stored();
    // A utf-7 coding declaration: a comment to the scanners, `eval` and a key to Python.
    const utf7 = await submit(
      id,
      token,
      submissionForm(
        await tarGz({
          "merge.mjs": code,
          "helper.py": "# -*- coding: utf-7 -*-\nx = 1  # +AAo-eval(x)\n",
        }),
      ),
    );
    const utf7Body = await expectProblem(utf7, 422);
    expect(utf7Body).toMatchObject({ rule: "source-encoding", entry: "helper.py" });
    expect(utf7Body.detail).toContain("utf-7");
    // A UTF-16 byte order mark on the module itself.
    const utf16 = Uint8Array.from([
      0xff,
      0xfe,
      ...Array.from(code, (c) => [c.charCodeAt(0), 0]).flat(),
    ]);
    const bom = await submit(id, token, submissionForm(zip({ "merge.mjs": utf16 })));
    const bomBody = await expectProblem(bom, 422);
    expect(bomBody).toMatchObject({ rule: "source-encoding", entry: "merge.mjs" });
    expect(bomBody.detail).toContain("UTF-16");
    expect(await stored()).toEqual(before);
  });

  it("accepts honest UTF-8 source: a utf-8 declaration, a byte order mark, non-ASCII text", async () => {
    const { id, token } = await moduleChallenge();
    const archive = await tarGz({
      "merge.mjs": "\ufeffexport const deepMerge = (a, b) => ({ ...a, ...b }); // grüße 🙂\n",
      "tools/check.py": "# -*- coding: utf-8 -*-\nNAME = 'ñandú'\n",
    });
    expect((await submit(id, token, submissionForm(archive))).status).toBe(202);
  });
});
