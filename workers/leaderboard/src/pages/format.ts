/**
 * @module leaderboard/pages/format
 * How numbers, times and codes read on the public pages (a profile by its registry title).
 * Pure: no I/O, no clock (times are rendered in UTC from the values given, so a page is the
 * same wherever it is rendered).
 */
import { isProfileId, resolveBand, scoringProfileOf } from "@bouts/scoring";

// "22:14", "5:03", "1:02:03": the scoring engine's one duration format.
export { formatDuration } from "@bouts/scoring";

/** "22 minutes 14 seconds": the spoken form of a duration, for screen readers. */
export function describeDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const parts: [number, string][] = [
    [Math.floor(total / 3600), "hour"],
    [Math.floor((total % 3600) / 60), "minute"],
    [total % 60, "second"],
  ];
  const spoken = parts.filter(([n]) => n > 0).map(([n, u]) => `${n} ${u}${n === 1 ? "" : "s"}`);
  return spoken.length > 0 ? spoken.join(" ") : "0 seconds";
}

/** "2026-11-30 08:01 UTC". */
export function formatDateTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** ISO 8601, for `<time datetime>`. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** A signed decimal text: "+5", "−7.075" (a true minus sign), "0". */
export function formatSigned(text: string): string {
  if (text.startsWith("-")) return `−${text.slice(1)}`;
  return text === "0" ? "0" : `+${text}`;
}

/** The band's label and meaning for a rounded score (the scoring engine's table). */
export function describeBand(score: number): { key: string; label: string; meaning: string } {
  const band = resolveBand(score);
  return { key: band.key, label: band.label, meaning: band.meaning };
}

const TRAJECTORY_LABELS: Record<string, string> = {
  "one-shot": "One-shot",
  improving: "Improving",
  regression: "Regression",
  "last-jump": "Last jump",
};

const TRAJECTORY_MEANINGS: Record<string, string> = {
  "one-shot": "one submission",
  improving: "the score never went down",
  regression: "the score went down at least once",
  "last-jump": "flat until a final rise",
};

/** "Improving" and what it means. */
export function describeTrajectoryClass(key: string): { label: string; meaning: string } {
  return { label: TRAJECTORY_LABELS[key] ?? key, meaning: TRAJECTORY_MEANINGS[key] ?? "" };
}

const RULE_LABELS: Record<string, string> = {
  median: "Median: the judges agreed within 15 points",
  "outlier-discarded": "Outlier set aside: one judge was more than 15 points from every other",
  "ambiguity-penalty": "Ambiguity penalty: the judges disagreed, mean − 10",
  "single-judge": "Single judge: only one valid judgement",
};

/** The aggregation rule in words (docs/scoring.md "Judge aggregation"). */
export function describeRule(rule: string): string {
  return RULE_LABELS[rule] ?? rule;
}

/** "Engineering composite": the profile's title in the engine's registry (else its id). */
export function describeProfile(profile: string): string {
  return isProfileId(profile) ? scoringProfileOf(profile).labels.title : profile;
}

/**
 * Exact decimal USD text for reading: "$6.75", "$0.000156" (three significant digits below a
 * dollar), "$0". The exact amount stays in the API and in the element's title.
 */
export function formatUsd(usd: string): string {
  const n = Number(usd);
  if (n === 0) return "$0";
  if (n >= 1) return `$${n.toFixed(2)}`;
  return `$${Number(n.toPrecision(3)).toString()}`;
}
