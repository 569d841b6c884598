/**
 * @module runner/cli/self-test
 * `node --import tsx containers/runner/src/cli/self-test.ts`: the isolation self-test the service
 * runs before it listens (in the Container image and on a plain host alike), on its own: exits 0
 * and lists the checks when it passes, 1 when it fails, 2 on a bad RUNNER_* config.
 */
import { loadRunnerConfigOrExit } from "../config.ts";
import { createRunnerEnvironment } from "../environment.ts";

const config = loadRunnerConfigOrExit({ ...process.env, RUNNER_SELF_TEST: "on" });
const env = await createRunnerEnvironment(config);
if (!env.ok) {
  console.error(`self-test: failed: ${JSON.stringify(env.error)}`);
  process.exit(1);
}
for (const check of env.value.selfTest?.checks ?? []) console.log(`self-test: ok: ${check}`);
console.log(`self-test: passed (${env.value.selfTest?.cgroups ?? "no report"})`);
process.exit(0);
