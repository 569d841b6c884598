/**
 * `npm run bench -- scan`: the security scan time of each example challenge's submissions
 * (challenges/<name>/submissions/<kind>), one `name: value` line each, plus the total per
 * challenge. Uses the real scanners (Semgrep from the project venv, ESLint in-process).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { scanSubmission } from "../../containers/runner/src/scan/index.ts";

const CHALLENGES = path.resolve(import.meta.dirname, "../../challenges");

export default async function (args: string[]): Promise<void> {
  const only = args.filter((a) => !a.startsWith("--"));
  if (!existsSync(CHALLENGES)) {
    console.error(`bench scan: ${CHALLENGES} does not exist`);
    process.exitCode = 1;
    return;
  }
  const names = readdirSync(CHALLENGES)
    .filter((n) => existsSync(path.join(CHALLENGES, n, "submissions")))
    .filter((n) => only.length === 0 || only.includes(n))
    .sort();
  for (const name of names) {
    const manifest = JSON.parse(
      readFileSync(path.join(CHALLENGES, name, "challenge.json"), "utf8"),
    ) as { runtime?: string };
    const runtime = manifest.runtime?.startsWith("python") ? "python" : "node";
    const subs = path.join(CHALLENGES, name, "submissions");
    let total = 0;
    for (const kind of readdirSync(subs).sort()) {
      const started = performance.now();
      const report = await scanSubmission(path.join(subs, kind), { runtime });
      const ms = performance.now() - started;
      total += ms;
      console.log(
        `scan_ms.${name}.${kind}: ${ms.toFixed(0)} (${report.status}, ${report.findings.length} findings)`,
      );
    }
    console.log(`scan_ms.${name}: ${total.toFixed(0)}`);
  }
}
