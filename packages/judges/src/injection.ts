/**
 * @module judges/injection
 * A deterministic pre-scan for text that tries to instruct a judge. Submitted text is data:
 * this scan only flags it (and lets the offline judge ignore those lines); it never changes a
 * score by itself. Pure.
 */

const PATTERNS: readonly RegExp[] = [
  /\bignore\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier)\s+(?:instructions|prompts?|rules)/i,
  /\bdisregard\s+(?:all\s+|the\s+)?(?:previous|prior|above|system)\b/i,
  /\b(?:you\s+are|act\s+as)\s+(?:now\s+)?(?:a|an|the)\s+(?:judge|grader|evaluator|reviewer)\b/i,
  /\b(?:score|grade|rate|give)\s+(?:(?:this|it|me|the|my)\s+)?(?:(?:code|submission|solution|answer)\s+)?(?:a\s+|an\s+)?(?:100|10\/10|full\s+marks|perfect|maximum)/i,
  /\b(?:system|assistant)\s*prompt\b/i,
  /\bnew\s+instructions\s*:/i,
  /<\/?\s*(?:system|assistant|instructions?)\s*>/i,
  /\b(?:AI|LLM|language\s+model)\s+(?:judge|grader|evaluator)s?\b[^\n]{0,40}\b(?:must|should|will)\b/i,
];

/** Lines of `text` that look like instructions to a judge, 1-based. */
export function findInjectionLines(text: string): number[] {
  const hits: number[] = [];
  text.split("\n").forEach((line, i) => {
    if (PATTERNS.some((p) => p.test(line))) hits.push(i + 1);
  });
  return hits;
}

/** The text with injection lines blanked (line numbers preserved). */
export function stripInjectionLines(text: string): string {
  const hits = new Set(findInjectionLines(text));
  if (hits.size === 0) return text;
  return text
    .split("\n")
    .map((line, i) => (hits.has(i + 1) ? "" : line))
    .join("\n");
}
