/**
 * The demo's rescore (docs/design.md §30): the operator uploads the second version of deep-merge
 * (one test added, @bouts/fixtures), the platform rescores every counted
 * submission in the shadows, the demo prints the diff report, promotes the version and prints
 * the promoted board. Used by `scripts/demo.ts`; uses raw fetch for the gzip upload.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { unwrap, type BoutsClient } from "@bouts/client";
import { packDirectory, ROOT } from "./local-platform.ts";
import { ADDED_TEST, SECOND_VERSION_CHALLENGE, writeSecondVersion } from "@bouts/fixtures";

export { SECOND_VERSION_CHALLENGE };

/** The second version's bundle, packed as `npm start` packs a challenge. */
function packSecondVersion(): Uint8Array {
  const dir = mkdtempSync(path.join(tmpdir(), "bouts-demo-v2-"));
  const copy = path.join(dir, SECOND_VERSION_CHALLENGE);
  try {
    writeSecondVersion(path.join(ROOT, "challenges"), copy);
    return packDirectory(copy, ["submissions", "README.md"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Uploads, waits for the rescores, prints the diff, promotes and prints the promoted board. */
export async function rescoreAndPromote(c: {
  api: string;
  operatorKey: string;
  operator: BoutsClient;
  anonymous: BoutsClient;
  challengeId: string;
  names: Map<string, string>;
  deadlineMs: number;
}): Promise<void> {
  const id = { params: { path: { id: c.challengeId } } };
  console.log(
    `\n═══ ${SECOND_VERSION_CHALLENGE}: a second version adds the test "${ADDED_TEST.name}" ═══`,
  );
  const res = await fetch(
    `${c.api}/v1/challenges/${c.challengeId}/versions?note=${encodeURIComponent(`adds ${ADDED_TEST.id}`)}`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${c.operatorKey}`, "content-type": "application/gzip" },
      body: packSecondVersion(),
    },
  );
  const uploaded = (await res.json()) as { version?: number; detail?: string };
  if (res.status !== 201 || uploaded.version === undefined) {
    // An earlier demo promoted it already (the live bundle is this one), or one is still open.
    console.log(`  not uploaded (${res.status}): ${uploaded.detail ?? JSON.stringify(uploaded)}`);
    return;
  }
  const version = uploaded.version;
  const vpath = { params: { path: { id: c.challengeId, version } } };
  const start = Date.now();
  for (;;) {
    const v = await unwrap(c.operator.GET("/v1/challenges/{id}/versions/{version}", vpath));
    if (v.state !== "rescoring") break;
    if (Date.now() - start > c.deadlineMs) {
      console.log(`  still rescoring after ${c.deadlineMs / 1000}s: ${JSON.stringify(v.rescores)}`);
      return;
    }
    await sleep(1000);
  }
  const diff = await unwrap(c.operator.GET("/v1/challenges/{id}/versions/{version}/diff", vpath));
  console.log(
    `  version ${version}: ${diff.rescores.scored} of ${diff.rescores.total} counted submissions rescored (${diff.state})`,
  );
  console.log("  rank old → new | score old → new | agent, changed tests");
  for (const a of diff.agents) {
    const changed = a.submissions
      .flatMap((s) => s.changedTests)
      .map((t) => `${t.id}: ${t.before ?? "new"} → ${t.after ?? "removed"}`);
    console.log(
      `  #${a.before?.rank ?? "-"} → #${a.after?.rank ?? "-"}`.padEnd(17) +
        `| ${a.before?.score ?? "-"} → ${a.after?.score ?? "-"}`.padEnd(16) +
        `| ${c.names.get(a.agentId) ?? a.name}${changed.length ? `: ${changed.join(", ")}` : ""}`,
    );
  }
  if (diff.state !== "ready") {
    console.log(`  not promoted: the version is ${diff.state}`);
    return;
  }
  await unwrap(
    c.operator.POST("/v1/challenges/{id}/versions/{version}/promote", {
      ...vpath,
      body: { reason: `the demo promotes version ${version}` },
    }),
  );
  // The board is read through a short version cache: wait for the promoted board.
  let board = await unwrap(c.anonymous.GET("/v1/challenges/{id}/leaderboard", id));
  const promoted = new Map(diff.agents.map((a) => [a.agentId, a.after?.score]));
  for (let i = 0; i < 40 && board.entries.some((e) => promoted.get(e.agentId) !== e.score); i++) {
    await sleep(250);
    board = await unwrap(c.anonymous.GET("/v1/challenges/{id}/leaderboard", id));
  }
  console.log(`  promoted: version ${version} is live; the board now reads`);
  for (const e of board.entries)
    console.log(
      `  #${e.rank} ${String(e.score).padStart(3)}  ${c.names.get(e.agentId) ?? e.agentId}`,
    );
}
