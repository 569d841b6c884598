/**
 * @module runner/guard
 * The last-resort guard: a fault that escapes every try/catch of one run (an exception thrown
 * from a library's detached callback, a promise rejected with no handler) ends that run alone
 * with an infrastructure error, and the service keeps serving every other run. Invariants: a
 * fault is attributed through the async context it was thrown in (AsyncLocalStorage follows
 * timers, I/O callbacks and promises), so it can only end the run that caused it; a fault
 * outside any run is logged and the process stays up; a guarded run settles exactly once.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { err, ok, type Result } from "@bouts/result";

/** Why a guarded run ended without its own answer. */
export type RunFault = { reason: "run-fault"; label: string; detail: string };

interface Guard {
  label: string;
  fault(error: unknown): void;
}

const CURRENT = new AsyncLocalStorage<Guard>();
let installed = false;

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/**
 * Installs the process-wide handlers once. A fault inside a guarded run fails that run; any
 * other is logged with `log`, and the process keeps serving.
 */
export function installProcessGuard(log: (line: string) => void = console.error): void {
  if (installed) return;
  installed = true;
  const handle = (kind: string) => (error: unknown) => {
    const guard = CURRENT.getStore();
    if (guard) {
      log(`runner: ${kind} in run ${guard.label}: ${describe(error)}`);
      guard.fault(error);
    } else {
      log(`runner: ${kind} outside any run (kept serving): ${describe(error)}`);
    }
  };
  process.on("uncaughtException", handle("uncaught exception"));
  process.on("unhandledRejection", handle("unhandled rejection"));
}

/**
 * Runs `work` under the guard: its result, or a `run-fault` when anything it started threw
 * where no caller could catch it. The work itself may go on in the background after a fault;
 * its own `finally` blocks still clean up.
 */
export async function guardRun<T>(
  label: string,
  work: () => Promise<T>,
): Promise<Result<T, RunFault>> {
  let onFault!: (error: unknown) => void;
  const faulted = new Promise<Result<T, RunFault>>((resolve) => {
    onFault = (error) => resolve(err({ reason: "run-fault", label, detail: describe(error) }));
  });
  const guard: Guard = { label, fault: (error) => onFault(error) };
  const done = CURRENT.run(guard, async () => ok(await work()));
  return Promise.race([
    done.catch((error: unknown) =>
      err<RunFault>({ reason: "run-fault", label, detail: describe(error) }),
    ),
    faulted,
  ]);
}
