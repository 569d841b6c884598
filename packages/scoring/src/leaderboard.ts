/**
 * @module scoring/leaderboard
 * Score trajectories (docs/design.md §8) and how a time to final reads. The ranking order and
 * the standing itself are `@bouts/ranking`'s. Pure: times are passed in.
 */

/** The classes of docs/design.md §8, as a const tuple (for `z.enum`). */
export const TRAJECTORY_CLASSES = ["one-shot", "improving", "regression", "last-jump"] as const;
/** One of TRAJECTORY_CLASSES. */
export type TrajectoryClass = (typeof TRAJECTORY_CLASSES)[number];

/**
 * Classifies a score history (oldest first): one submission → one-shot; any decrease →
 * regression; three or more with no change before the last and then a rise → last-jump
 * (trial and error); otherwise improving. Shown beside the score, never part of it.
 * @example classifyTrajectory([60, 60, 60, 85]) // "last-jump"
 */
export function classifyTrajectory(scores: readonly number[]): TrajectoryClass {
  if (scores.length <= 1) return "one-shot";
  for (let i = 1; i < scores.length; i++) if (scores[i]! < scores[i - 1]!) return "regression";
  const last = scores[scores.length - 1]!;
  const before = scores.slice(0, -1);
  if (scores.length >= 3 && before.every((s) => s === before[0]) && last > before[0]!)
    return "last-jump";
  return "improving";
}

/**
 * Formats a duration as a clock reads: m:ss, or h:mm:ss past an hour; the leading unit is
 * never zero-padded and sub-second times round down. The one duration format of the platform
 * (the public pages show it; no API field carries it).
 * @example formatDuration(303_000) // "5:03"
 * @example formatDuration(3_723_000) // "1:02:03"
 */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}
