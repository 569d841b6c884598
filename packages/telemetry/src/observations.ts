/**
 * @module telemetry/observations
 * What the platform itself saw of an agent's run, which a trace is checked against
 * (docs/telemetry.md, "What the platform vouches for"): the files that ran, the platform's
 * records of the agent's submissions, the model usage its metering gateway counted, and whether
 * the same code's outcomes were already public. Types only; the score role gathers them.
 */

/** One model's calls as the metering gateway counted them. */
export interface ObservedModelUsage {
  model: string;
  calls: number;
  tokensIn: number;
  tokensOut: number;
}

/**
 * The model usage the platform's metering gateway counted for one agent on one challenge within a
 * window of time: the calls that belong to one submission.
 */
export interface ObservedUsage {
  /** `gateway`: the platform Worker's own proxy (D1); `ai-gateway`: Cloudflare AI Gateway's logs. */
  source: "gateway" | "ai-gateway";
  /** Model calls seen, failed ones included. */
  calls: number;
  /** Tokens the upstream reported, summed over the calls that reported usage. */
  tokensIn: number;
  tokensOut: number;
  /** Calls whose response carried no usage (their tokens are not in the sums). */
  callsWithoutUsage: number;
  /** Per model, sorted by model name. */
  models: ObservedModelUsage[];
  /** The window, epoch ms: after `from`, up to and including `to`. */
  from: number;
  to: number;
}

/** What the platform knows of a submission, independent of anything the agent reported. */
export interface PlatformObservations {
  /** sha256 (hex) of each file the run used, by path relative to the submission's root; null if unknown. */
  files: ReadonlyMap<string, string> | null;
  /** When the platform received this submission (epoch ms). */
  receivedAt: number;
  /** When the agent's previous submission to this challenge was received (epoch ms), or null. */
  previousReceivedAt: number | null;
  /** How many submissions the agent made to this challenge before this one. */
  submissionsBefore: number;
  /** Model usage the metering gateway counted between the previous submission and this one, or null. */
  usage: ObservedUsage | null;
  /**
   * True when identical files (the same `filesSha256`) were scored on this challenge before this
   * submission was received, by any agent: their public outcomes could have been read.
   */
  codeScoredBefore: boolean;
  /** Test ids held out of every public report (the private part, docs/design.md §29). */
  privateTestIds: ReadonlySet<string>;
}
