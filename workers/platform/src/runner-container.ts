/**
 * @module platform/runner-container
 * The sandboxed runner (containers/runner) as a Cloudflare Container, bound as RUNNER in the
 * production env only. Invariant: no internet: the runner executes untrusted code.
 * Locally and in tests there is no Container (no Docker); the Worker reaches the runner
 * through RUNNER_URL or a service binding instead (see docs/runner.md).
 */
import { Container } from "@cloudflare/containers";

/** One runner instance; the runner's HTTP API listens on 8080 inside the container. */
export class RunnerContainer extends Container<Env> {
  override defaultPort = 8080;
  override sleepAfter = "5m";
  override enableInternet = false;
  override pingEndpoint = "localhost/healthz";
}
