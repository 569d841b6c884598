/**
 * @module score/env
 * The bindings the score role uses, one type for every module of it. Types only; it imports
 * nothing of the role but the env types of its clients (runner, judges, generator), so the
 * modules that take a `ScoreEnv` never import each other for it.
 */
import type {
  BoardNamespace,
  BoardStub,
  EventMessage,
  SubmissionsQueueMessage,
} from "@bouts/contracts";
import type { GeneratorEnv } from "./generation.ts";
import type { JudgeEnv } from "./judging.ts";
import type { RunnerEnv } from "./runner-client.ts";

/** What the pipeline needs of the leaderboard Durable Object (its stub; docs/leaderboard.md). */
export type LeaderboardRecorder = Pick<BoardStub, "recordResult" | "recordBaseline">;

/** Bindings and configuration the pipeline uses. */
export type ScoreEnv = RunnerEnv &
  JudgeEnv &
  GeneratorEnv & {
    DB: D1Database;
    ARTIFACTS: R2Bucket;
    WEBHOOKS: Queue<EventMessage>;
    /** The submissions queue: rescore messages are sent on it too (docs/design.md §30). */
    SUBMISSIONS: Queue<SubmissionsQueueMessage>;
    /** One ChallengeLeaderboard Durable Object per challenge, named by challenge id. */
    LEADERBOARD: BoardNamespace<LeaderboardRecorder>;
  };
