/**
 * @module runner/cli/challenge
 * `npm run challenge -- run <challenge-dir> <submission.tar.gz|.zip|folder> [--json]` runs one
 * submission and prints its RunReport; `npm run challenge -- qa <challenge-dir> [--json]` runs
 * challenge QA. Both go through the same path as the service: the challenge folder is packed
 * into a bundle archive and prepared (cached by sha256); a folder submission is packed into a
 * .tar.gz with links kept as links, so the unpacker refuses them exactly as it would online.
 * Exit status: 0 on a completed run or a publishable challenge, 1 otherwise, 2 on usage errors.
 */
import { randomUUID } from "node:crypto";
import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import type { RunReport } from "@bouts/contracts";
import {
  describeBundleError,
  computeSha256,
  packChallengeDir,
  packDir,
  prepareChallenge,
} from "../challenge/bundle.ts";
import { runChallengeQa } from "../challenge/qa.ts";
import { loadRunnerConfigOrExit } from "../config.ts";
import { createRunnerEnvironment } from "../environment.ts";
import { runJob } from "../job.ts";
import { resolvePrepareOptions } from "../challenge/prepare-options.ts";

function usage(): never {
  console.error(
    "usage: npm run challenge -- run <challenge-dir> <submission archive or folder> [--json]",
  );
  console.error("       npm run challenge -- qa <challenge-dir> [--json]");
  process.exit(2);
}

/** Prints a report for people: one line per test, then the evidence. */
export function formatReport(r: RunReport): string {
  const lines: string[] = [
    `challenge ${r.challengeId}  run ${r.runId}  ${r.runtime.name} ${r.runtime.version}`,
  ];
  if (r.infrastructure)
    lines.push(`INFRASTRUCTURE ERROR (${r.infrastructure.reason}): ${r.infrastructure.message}`);
  for (const t of r.staticTests)
    lines.push(
      `  static      ${t.status.padEnd(8)} ${t.id} [${t.category}] ${Math.round(t.durationMs)}ms ${t.message.split("\n")[0]?.slice(0, 100) ?? ""}`,
    );
  for (const t of r.adversarialTests)
    lines.push(
      `  ${t.origin === "generated" ? "generated  " : "adversarial"} ${t.status.padEnd(8)} ${t.id} [${t.severity}${t.generated ? `, ${t.generated.technique}` : ""}] ${Math.round(t.durationMs)}ms ${t.message.split("\n")[0]?.slice(0, 100) ?? ""}`,
    );
  if (r.generation) {
    const w = r.generation.weightHalves;
    const total = w.prebuilt + w.generated;
    const pct = (h: number) => (total === 0 ? "0" : ((100 * h) / total).toFixed(1));
    lines.push(
      `adversarial weight: pre-built ${w.prebuilt / 2} (${pct(w.prebuilt)} %), generated ${w.generated / 2} (${pct(w.generated)} %) of budget ${w.budget / 2}; target 40/60`,
    );
    for (const g of r.generation.generators)
      lines.push(
        `  generator ${g.name}: ${g.status}, ${g.selected} of ${g.candidates} candidates${g.dropped.length ? `, ${g.dropped.length} dropped` : ""}${g.detail ? ` — ${g.detail.slice(0, 160)}` : ""}`,
      );
  }
  const sp = r.staticTests.filter((t) => t.status === "passed").length;
  const ap = r.adversarialTests.filter((t) => t.status === "passed").length;
  lines.push(
    `static ${sp}/${r.staticTests.length}  adversarial ${ap}/${r.adversarialTests.length}  stability ${r.stability.verdict}  scan ${r.scan.status} (${r.scan.findings.length} findings)`,
  );
  for (const e of r.stability.evidence) lines.push(`  stability: ${e}`);
  for (const e of r.integrity) lines.push(`  integrity ${e.trigger} ×${e.count}: ${e.citation}`);
  for (const e of r.exploits) lines.push(`  exploit ${e.trigger} ×${e.count}: ${e.citation}`);
  for (const d of r.deliverables)
    lines.push(`  deliverable ${d.name}: ${d.present ? `present (${d.bytes} bytes)` : "missing"}`);
  for (const n of r.notes) lines.push(`  note: ${n}`);
  lines.push(
    `timings: unpack ${r.timings.unpackMs}ms, scan ${r.timings.scanMs}ms, tests ${r.timings.testsMs}ms, total ${r.timings.totalMs}ms`,
  );
  return lines.join("\n");
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const json = args.includes("--json");
  const [cmd, challengeDir, submissionPath] = args.filter((a) => a !== "--json");
  if (!cmd || !challengeDir || (cmd === "run" && !submissionPath) || !["run", "qa"].includes(cmd))
    usage();
  const config = loadRunnerConfigOrExit();
  const env = await createRunnerEnvironment(config);
  if (!env.ok) {
    console.error(`runner cannot start: ${JSON.stringify(env.error)}`);
    return 1;
  }
  const { environment } = env.value;
  const bundle = await packChallengeDir(path.resolve(challengeDir));
  const prepared = await prepareChallenge(bundle, resolvePrepareOptions(environment));
  if (!prepared.ok) {
    console.error(describeBundleError(prepared.error));
    return 1;
  }
  if (cmd === "qa") {
    const qa = await runChallengeQa(environment, prepared.value, config.QA_REPEATS);
    if (!qa.ok) {
      console.error(JSON.stringify(qa.error));
      return 1;
    }
    if (json) console.log(JSON.stringify(qa.value, null, 2));
    else {
      for (const t of qa.value.tests)
        console.log(
          `  ${t.verdict.padEnd(8)} ${t.id} (${t.passes}/${t.runs})${t.verdict === "stable" ? "" : ` ${t.lastMessage.split("\n")[0]}`}`,
        );
      for (const p of qa.value.problems) console.log(`  problem: ${p}`);
      if (qa.value.removed.length) console.log(`removed: ${qa.value.removed.join(", ")}`);
      console.log(
        `${qa.value.challengeId}: ${qa.value.publishable ? "publishable" : "NOT publishable"}`,
      );
    }
    return qa.value.publishable ? 0 : 1;
  }
  const sp = path.resolve(submissionPath!);
  const submission = lstatSync(sp).isDirectory() ? await packDir(sp) : readFileSync(sp);
  const r = await runJob({
    runId: randomUUID(),
    challenge: prepared.value,
    submission,
    submissionSha256: computeSha256(submission),
    requestedLimits: {},
    environment,
  });
  if (!r.ok) {
    console.error(
      r.error.reason === "submission-rejected"
        ? `submission refused: ${r.error.message}`
        : JSON.stringify(r.error),
    );
    return 1;
  }
  console.log(json ? JSON.stringify(r.value, null, 2) : formatReport(r.value));
  return r.value.infrastructure ? 1 : 0;
}

process.exitCode = await main();
