/**
 * @module runner/server
 * Entry point of the runner service (`npm run runner`, and the container's CMD). Parses the
 * RUNNER_* environment (bad values exit 2), proves isolation with the self-test (a failure
 * exits 1: the runner never serves without a working sandbox), then listens. Off loopback it
 * needs RUNNER_SHARED_SECRET (config.ts), and then every request but /healthz must be signed.
 */
import { serve } from "@hono/node-server";
import { createRunnerApp } from "./app.ts";
import { loadRunnerConfigOrExit } from "./config.ts";
import { createRunnerEnvironment } from "./environment.ts";
import { installProcessGuard } from "./guard.ts";

// Before anything else: no fault of one run may take the process (and every other run) down.
installProcessGuard();

const config = loadRunnerConfigOrExit();
// The secret lives in the config alone: no child the runner spawns may inherit it.
delete process.env.RUNNER_SHARED_SECRET;
if (config.SHARED_SECRET === undefined)
  console.warn(
    `runner: RUNNER_SHARED_SECRET is unset: requests are not authenticated (allowed on loopback ${config.HOST} only)`,
  );
const env = await createRunnerEnvironment(config);
if (!env.ok) {
  console.error(`runner: refusing to start: ${JSON.stringify(env.error)}`);
  process.exit(1);
}
const { environment, selfTest } = env.value;
if (selfTest)
  console.log(
    `runner: isolation self-test passed (${selfTest.checks.length} checks, ${selfTest.cgroups})`,
  );
const server = serve(
  { fetch: createRunnerApp(environment, selfTest).fetch, port: config.PORT, hostname: config.HOST },
  (info) => {
    console.log(`runner: listening on http://${config.HOST}:${info.port}`);
  },
);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    server.close();
    process.exit(0);
  });
}
