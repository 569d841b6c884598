/**
 * @module platform/runner-container
 * The sandboxed runner (containers/runner) as a Cloudflare Container, bound as RUNNER in the
 * production env only. Invariants: no internet: the runner executes untrusted code; the
 * container gets the Worker's RUNNER_SHARED_SECRET and checks every request's signature like a
 * runner on a network (docs/design.md §21). Locally and in tests there is no Container (no
 * Docker); the Worker reaches the runner through RUNNER_URL or a service binding instead.
 */
import { Container } from "@cloudflare/containers";
import { readPlatformConfig } from "./config.ts";

/** One runner instance; the runner's HTTP API listens on 8080 inside the container. */
export class RunnerContainer extends Container<Env> {
  override defaultPort = 8080;
  override sleepAfter = "5m";
  override enableInternet = false;
  override pingEndpoint = "localhost/healthz";

  constructor(ctx: ConstructorParameters<typeof Container<Env>>[0], env: Env) {
    super(ctx, env);
    // Unset, the image (listening on 0.0.0.0) refuses to start: fail closed, never open.
    const secret = readPlatformConfig(env).runnerSharedSecret;
    if (secret) this.envVars = { RUNNER_SHARED_SECRET: secret };
  }
}
