/**
 * @module runner/run/subject
 * The host side of a run's subject: the one sandboxed process that loads the submission's
 * module (docs/subject-protocol.md). Calls from the trusted test processes are forwarded to it
 * as frames, each under a deadline. Invariants: nothing the subject writes is ever a verdict;
 * request() never rejects; every incarnation is killed and awaited by close().
 */
import { readdirSync, statSync } from "node:fs";
import type { ExploitTrigger, IntegrityTrigger, RunLimits, Runtime } from "@bouts/contracts";
import type { CgroupSupport } from "../sandbox/cgroup.ts";
import {
  buildSubjectInvocation,
  CHANNEL_DIR,
  computeAddressSpaceMb,
  type RuntimePaths,
} from "../sandbox/runtime.ts";
import {
  runSandboxed,
  type SandboxControl,
  type SandboxLimits,
  type SandboxMount,
  type SandboxOutcome,
} from "../sandbox/sandbox.ts";
import { observeRecord, type Observation, type ObservedRecord } from "./analyze.ts";
import {
  createRecordAllowance,
  createSubjectChannel,
  MAX_FRAME_BYTES,
  type ChannelItem,
  type Frame,
} from "./subject-channel.ts";

export { MAX_FRAME_BYTES, type Frame };

/** Restarts of a crashed or hung subject per run; after that every call fails at once. */
export const MAX_SUBJECT_RESTARTS = 5;
/** Longest close() waits for the subject's sandbox to be gone before the run moves on. */
const CLOSE_WAIT_MS = 10_000;
/** Entries kept per kind of subject evidence (the report cites at most 100 lines). */
export const MAX_EVIDENCE_ENTRIES = 100;
/** The answers a subject may give to a request (docs/subject-protocol.md, "Frames"). */
const ANSWER_TYPES: ReadonlySet<string> = new Set(["return", "throw", "http-ready", "http-closed"]);

/** Why a call got no answer from the subject. */
export type FaultKind = "crashed" | "timeout" | "protocol" | "unavailable";

/** Everything observed about the subject over the run. */
export interface SubjectEvidence {
  crashes: string[];
  warnings: string[];
  integrity: Observation<IntegrityTrigger>[];
  exploits: Observation<ExploitTrigger>[];
}

/** What every sandboxed process of a run shares: runtime, limits, budget and the /chan folder. */
export interface RunProcessOptions {
  runtime: Runtime;
  paths: RuntimePaths;
  bwrapBin: string;
  cgroups: CgroupSupport | null;
  /** Host uid the process runs as. */
  hostUid: number;
  /** Host folder mounted read-only at /work. */
  workspace: string;
  /** Host folder shared as /chan (read-write for the subject, read-only for the tests). */
  channelDir: string;
  depsLayer: string | null;
  limits: RunLimits;
  /** Epoch ms after which nothing may run (the run's wall-clock budget). */
  runDeadline: number;
  /** Label for sandbox names. */
  name: string;
}

export interface SubjectOptions extends RunProcessOptions {
  /** The interface's module path, relative to the submission root. */
  module: string;
  /** Capped tmpfs mounts the run holds for the subject's /tmp and /dev/shm (watched by it). */
  scratchMounts?: SandboxMount[];
  maxRestarts?: number;
}

interface Incarnation {
  control: SandboxControl | null;
  outcome: Promise<SandboxOutcome>;
  pending: Map<number, (frame: Frame) => void>;
  ready: Promise<Frame>;
  dead: boolean;
  /** Set when the host killed it on purpose (deadline, protocol, close). */
  killedFor: string | null;
  /** The module failed to load; the subject may then end on its own. */
  loadFailed: boolean;
}

/** The subject of one run. */
export class SubjectHost {
  readonly #opts: SubjectOptions;
  #current: Incarnation | null = null;
  #restarts = 0;
  #nextId = 1;
  #closing = false;
  #startError: string | null = null;
  #retired: string | null = null;
  /** How many times the subject has ended unexpectedly; tests compare before and after. */
  deaths = 0;
  exports: Record<string, unknown> | null = null;
  loadError: string | null = null;
  /** "timeout" when loading the module outlived a test's limit (a busy loop at import). */
  #loadFault: FaultKind = "unavailable";
  readonly evidence: SubjectEvidence = { crashes: [], warnings: [], integrity: [], exploits: [] };
  /** Observation record bytes the run has read, over all incarnations (subject-channel.ts). */
  readonly #records = createRecordAllowance();

  constructor(opts: SubjectOptions) {
    this.#opts = opts;
  }

  /** Starts the first incarnation; an error means the sandbox itself is unavailable. */
  async start(): Promise<{ ok: true } | { ok: false; message: string }> {
    const first = await this.#launch();
    if (this.#startError) return { ok: false, message: this.#startError };
    if (first.t === "ready" && first.exports && typeof first.exports === "object")
      this.exports = first.exports as Record<string, unknown>;
    else if (first.t === "load-error") this.loadError = describeErrorFrame(first);
    else this.loadError = text(first.message, "the subject did not start");
    if (this.#current?.killedFor?.startsWith("start-up")) {
      this.#loadFault = "timeout";
      this.loadError = `loading the module ${this.#current.killedFor}`;
    }
    return { ok: true };
  }

  /**
   * Gives up on the subject (the fail-fast rule, run/budget.ts): every later call gets an
   * `unavailable` fault at once.
   */
  retire(reason: string): void {
    this.#retired ??= reason;
    const inc = this.#current;
    if (inc) this.#kill(inc, `retired: ${reason}`.slice(0, 300));
  }

  /**
   * Tasks (processes and threads) now running as the subject's host uid, read from the host's
   * /proc: what RLIMIT_NPROC counts. At the process cap, this is the cap.
   */
  countTasks(): number {
    let n = 0;
    for (const pid of readdirSync("/proc")) {
      const c = pid.charCodeAt(0);
      if (c < 48 || c > 57) continue;
      try {
        if (statSync(`/proc/${pid}`).uid !== this.#opts.hostUid) continue;
        n += readdirSync(`/proc/${pid}/task`).length;
      } catch {
        // exited while we looked
      }
    }
    return n;
  }

  /** Why the run gave up on the subject, or null. */
  get retired(): string | null {
    return this.#retired;
  }

  /**
   * Forwards one request; resolves with the subject's answer or a fault frame. A subject that
   * crashes, hangs or breaks the protocol gets a fault answer, is killed, and is restarted for the
   * next call at most `maxRestarts` times; a retired one answers `unavailable` at once.
   */
  async request(frame: Frame, deadlineMs: number): Promise<Frame> {
    const callerId = frame.id;
    const fault = (kind: FaultKind, message: string): Frame => ({
      t: "fault",
      id: callerId,
      fault: kind,
      message: message.slice(0, 2000),
    });
    if (this.#retired !== null)
      return fault("unavailable", `the run gave up on the subject: ${this.#retired}`);
    if (this.loadError !== null && this.exports === null)
      return fault(this.#loadFault, `the submission's module failed to load: ${this.loadError}`);
    let inc = this.#current;
    // An incarnation the host is killing gets no more calls: wait until it is gone, then restart.
    if (inc && !inc.dead && inc.killedFor !== null) await inc.outcome;
    if (!inc || inc.dead) {
      if (this.#restarts >= (this.#opts.maxRestarts ?? MAX_SUBJECT_RESTARTS))
        return fault(
          "unavailable",
          `the subject ended ${this.#restarts + 1} times; no more restarts in this run`,
        );
      this.#restarts += 1;
      const ready = await this.#launch();
      inc = this.#current;
      if (!inc || inc.dead || ready.t !== "ready")
        return fault(
          inc?.killedFor?.startsWith("start-up") ? "timeout" : "unavailable",
          `the subject could not be restarted: ${describeErrorFrame(ready)}`,
        );
    }
    const id = this.#nextId++;
    const line = `${JSON.stringify({ ...frame, id })}\n`;
    if (line.length > MAX_FRAME_BYTES) return fault("protocol", "request larger than a frame");
    const answer = await new Promise<Frame>((resolve) => {
      const timer = setTimeout(
        () => {
          inc.pending.delete(id);
          this.#kill(inc, `a call to ${text(frame.name, frame.t)} exceeded its limit`);
          resolve(
            fault(
              "timeout",
              `${text(frame.name, frame.t)} did not answer within ${Math.round(deadlineMs)} ms; the subject was killed`,
            ),
          );
        },
        Math.max(1, deadlineMs),
      );
      inc.pending.set(id, (f) => {
        clearTimeout(timer);
        resolve({ ...f, id: callerId });
      });
      if (!inc.control?.write(line)) {
        inc.pending.delete(id);
        clearTimeout(timer);
        resolve(fault("crashed", "the subject is not running"));
      }
    });
    return answer;
  }

  /** Kills the current incarnation and waits for it to be gone. */
  async close(): Promise<void> {
    this.#closing = true;
    const inc = this.#current;
    if (!inc) return;
    this.#kill(inc, "the run ended");
    // The sandbox resolves once its tree is gone (its own wall clock and hard stop bound that);
    // the bound here only keeps a runner bug from holding the run's slot.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      inc.outcome.catch(() => undefined),
      new Promise<void>((r) => (timer = setTimeout(r, CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  #kill(inc: Incarnation, why: string): void {
    if (inc.dead) return;
    inc.killedFor ??= why;
    inc.control?.kill();
  }

  async #launch(): Promise<Frame> {
    const o = this.#opts;
    const inv = buildSubjectInvocation(
      o.runtime,
      o.paths,
      o.workspace,
      o.depsLayer,
      o.module,
      o.limits.memoryMb,
    );
    let readyResolve: (f: Frame) => void = () => undefined;
    const inc: Incarnation = {
      control: null,
      outcome: Promise.resolve(null as unknown as SandboxOutcome),
      pending: new Map(),
      ready: new Promise<Frame>((r) => (readyResolve = r)),
      dead: false,
      killedFor: null,
      loadFailed: false,
    };
    this.#current = inc;
    let readySeen = false;
    const onFrame = (rec: Frame) => {
      if (!readySeen) {
        readySeen = true;
        if (rec.t !== "ready" && rec.t !== "load-error")
          return this.#violation(inc, `a "${rec.t.slice(0, 40)}" frame before "ready"`);
        inc.loadFailed = rec.t === "load-error";
        return readyResolve(rec);
      }
      if (!ANSWER_TYPES.has(rec.t))
        return this.#violation(inc, `a "${rec.t.slice(0, 40)}" frame, which is no answer`);
      const waiter = typeof rec.id === "number" ? inc.pending.get(rec.id) : undefined;
      if (!waiter) return this.#violation(inc, "an answer to no pending request");
      inc.pending.delete(rec.id as number);
      waiter(rec);
    };
    const onItem = (item: ChannelItem) => {
      if (item.kind === "frame") onFrame(item.frame);
      else if (item.kind === "record") this.#observe(item.record);
      else this.#violation(inc, item.what);
    };
    const onChannel = createSubjectChannel(onItem, this.#records);
    inc.outcome = runSandboxed({
      bwrapBin: o.bwrapBin,
      hostUid: o.hostUid,
      argv: inv.argv,
      env: inv.env,
      cwd: inv.cwd,
      readOnlyMounts: inv.mounts,
      writableMounts: [{ src: o.channelDir, dest: CHANNEL_DIR }, ...(o.scratchMounts ?? [])],
      cgroups: o.cgroups,
      name: `${o.name}-subject-${this.#restarts}`,
      stdin: true,
      onChannel,
      onControl: (c) => (inc.control = c),
      limits: buildProcessLimits(o.limits, o.runtime, o.cgroups, o.runDeadline),
    }).then((outcome) => {
      inc.dead = true;
      // Whatever the evidence holds, every waiter is answered: a caller never waits on a
      // subject that is gone (issue: an exit handler that threw left a run slot held forever).
      try {
        this.#ended(inc, outcome);
      } catch (e) {
        // Evidence is best effort; the run must go on (and this is a runner bug to log).
        console.error(`runner: the subject's end could not be described: ${describeThrown(e)}`);
      } finally {
        readyResolve({
          t: "load-error",
          message: outcome.started
            ? `the subject ended before it was ready (${describeEnd(outcome)})`
            : `sandbox did not start: ${outcome.startError}`,
        });
        if (!outcome.started) this.#startError ??= `sandbox did not start: ${outcome.startError}`;
        for (const waiter of inc.pending.values())
          waiter({
            t: "fault",
            fault: inc.killedFor?.startsWith("protocol") ? "protocol" : "crashed",
            message: `the subject ended during the call (${inc.killedFor ?? describeEnd(outcome)})`,
          });
        inc.pending.clear();
      }
      return outcome;
    });
    // Loading the module is the submission's time: it gets one test's limit.
    const startTimer = setTimeout(
      () => this.#kill(inc, `start-up exceeded ${o.limits.testTimeoutMs} ms`),
      o.limits.testTimeoutMs,
    );
    const first = await inc.ready;
    clearTimeout(startTimer);
    return first;
  }

  #violation(inc: Incarnation, what: string): void {
    keep(this.evidence.exploits, {
      trigger: "fake-test-output",
      citation: `the subject broke the protocol: it wrote ${what} on its answer channel`,
    });
    this.#kill(inc, `protocol violation: ${what}`);
  }

  /** One checked observation record, kept as evidence within the per-kind bound. */
  #observe(record: ObservedRecord): void {
    const seen = observeRecord(record, "subject", this.#opts.runtime);
    if (seen === null) return;
    if (seen.kind === "integrity") keep(this.evidence.integrity, seen.observation);
    else if (seen.kind === "crash") keep(this.evidence.crashes, seen.text);
    else keep(this.evidence.warnings, seen.text);
  }

  /**
   * How an incarnation ended, as evidence. The subject's stdout is not read for "pass" lines:
   * no verdict comes from output, and honest code may print `✓ merged 2 sources`.
   */
  #ended(inc: Incarnation, outcome: SandboxOutcome): void {
    const ev = this.evidence;
    if (!outcome.started || (this.#closing && inc.killedFor === "the run ended")) return;
    if (inc.loadFailed) return;
    // A kill the host chose already answered its call with a fault; counting it as a death
    // too would blame whichever test is running when the kill lands (a race).
    if (!inc.killedFor) this.deaths += 1;
    if (inc.killedFor) keep(ev.crashes, `subject killed: ${inc.killedFor}`);
    else if (outcome.exitCode === 0)
      keep(ev.exploits, {
        trigger: "harness-exit-forcing",
        citation: "the subject exited with status 0 while tests were running",
      });
    else {
      keep(ev.crashes, `subject ${describeEnd(outcome)}`);
      // The Python subject ends with 70 when a call raises SystemExit (sys.exit(0) in a function).
      if (outcome.exitCode === 70 && /raised SystemExit/.test(outcome.stderr))
        keep(ev.exploits, {
          trigger: "harness-exit-forcing",
          citation: "submission code called sys.exit() during a call",
        });
    }
  }
}

/** How a sandboxed process ended, for evidence. */
export function describeEnd(outcome: SandboxOutcome): string {
  if (outcome.timedOut) return "ran out of the run's wall-clock budget";
  if (outcome.outputLimited) return "exceeded the output limit";
  if (outcome.oomKilled || /heap out of memory|MemoryError/.test(outcome.stderr))
    return "ran out of memory";
  if (outcome.signal) return `was killed by ${outcome.signal}`;
  const tail = outcome.stderr.trim().split("\n").slice(-3).join(" ").slice(-300);
  return `exited with status ${String(outcome.exitCode)}${tail ? `: ${tail}` : ""}`;
}

function describeErrorFrame(f: Frame): string {
  const graph = f.error as { nodes?: { name?: unknown; message?: unknown }[] } | undefined;
  const node = graph?.nodes?.[0];
  if (node && typeof node.message === "string")
    return `${text(node.name, "Error")}: ${node.message}`.slice(0, 1000);
  return text(f.message, "unknown error").slice(0, 1000);
}

/** A thrown value as text for a log line, without coercing it (it may be any object). */
function describeThrown(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : typeof e;
}

/** Appends within MAX_EVIDENCE_ENTRIES: a flood of records cannot grow the run's memory. */
function keep<T>(list: T[], item: T): void {
  if (list.length < MAX_EVIDENCE_ENTRIES) list.push(item);
}

function text(v: unknown, fallback: string): string {
  return typeof v === "string" ? v : fallback;
}

/**
 * Splits a byte stream into lines and hands each to `onLine`; a line growing past
 * MAX_FRAME_BYTES is dropped and reported to `onOverflow`.
 */
export function createLineSplitter(
  onLine: (line: string) => void,
  onOverflow: () => void = () => undefined,
): (chunk: Buffer) => void {
  let pending: Buffer[] = [];
  let size = 0;
  return (chunk) => {
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
      pending.push(chunk.subarray(start, i));
      const line = Buffer.concat(pending).toString("utf8");
      pending = [];
      size = 0;
      start = i + 1;
      onLine(line);
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      size += chunk.length - start;
      if (size > MAX_FRAME_BYTES) {
        pending = [];
        size = 0;
        onOverflow();
      }
    }
  };
}

/** The sandbox limits of a subject or trusted test process under `limits`, up to `deadline`. */
export function buildProcessLimits(
  limits: RunLimits,
  runtime: Runtime,
  cgroups: CgroupSupport | null,
  deadline: number,
): SandboxLimits {
  return {
    memoryMb: limits.memoryMb,
    cpuSeconds: limits.cpuSeconds,
    maxProcesses: limits.maxProcesses,
    maxOpenFiles: limits.maxOpenFiles,
    maxFileSizeMb: limits.maxFileSizeMb,
    maxOutputBytes: limits.maxOutputBytes,
    wallMs: Math.max(1, deadline - Date.now()),
    addressSpaceMb: cgroups ? null : computeAddressSpaceMb(runtime, limits.memoryMb),
  };
}
