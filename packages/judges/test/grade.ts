/**
 * Test helper: the code-quality component (0–100) the heuristic panel gives files, aggregated
 * by the engine as the score role does.
 */
import { computeCodeQuality } from "@bouts/scoring";
import {
  createOfflinePanel,
  isSourcePath,
  runPanel,
  toCodeQualityInput,
  type SourceFile,
} from "../src/index.ts";

/** The code-quality component (0–100) the panel gives `files`, as the engine aggregates it. */
export async function gradeCodeQuality(files: SourceFile[]): Promise<number> {
  const sources = files.filter((f) => isSourcePath(f.path));
  const outcome = await runPanel(createOfflinePanel(), {
    kind: "code-quality",
    challenge: { id: "example", title: "example", summary: "" },
    files: sources,
  });
  const scored = computeCodeQuality({ judges: toCodeQualityInput(outcome.judgements) });
  if (!scored.ok) throw new Error(JSON.stringify(scored.error));
  return scored.value.score.toNumber();
}
