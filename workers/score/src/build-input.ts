/**
 * @module score/build-input
 * Maps what the runner observed and what the judges said onto the engine's inputs. Pure: no
 * I/O. A run that cannot be scored fairly (infrastructure error, scan that did not run, no
 * valid judgement) is a typed failure, never a guessed score.
 */
import type { ChallengeManifest, RunReport } from "@bouts/contracts";
import type { Result } from "@bouts/result";
import type {
  CodeQualityJudgement,
  DeliverableJudgement,
  DeliverableInput,
  EngineeringInput,
} from "@bouts/scoring";

/** Why a run could not become an engineering input. `retryable` failures are ours, not the agent's. */
export type BuildInputError =
  | { reason: "infrastructure"; retryable: true; detail: string }
  | { reason: "scan-unavailable"; retryable: true; detail: string }
  | { reason: "no-judgements"; retryable: true; detail: string }
  | { reason: "report-mismatch"; retryable: false; detail: string };

/** One required deliverable as judged. */
export interface JudgedDeliverable {
  path: string;
  status: DeliverableInput["status"];
  judges: DeliverableJudgement[];
}

export interface EngineeringEvidence {
  report: RunReport;
  manifest: ChallengeManifest;
  codeQuality: CodeQualityJudgement[];
  deliverables: JudgedDeliverable[];
}

/** Builds the engineering input from a run report and the judges' answers. */
export function buildEngineeringInput(
  e: EngineeringEvidence,
): Result<EngineeringInput, BuildInputError> {
  const { report, manifest } = e;
  if (report.infrastructure)
    return {
      ok: false,
      error: {
        reason: "infrastructure",
        retryable: true,
        detail: `${report.infrastructure.reason}: ${report.infrastructure.message}`,
      },
    };
  if (report.scan.status === "unavailable")
    return {
      ok: false,
      error: {
        reason: "scan-unavailable",
        retryable: true,
        detail:
          report.scan.notMeasured.map((n) => `${n.check}: ${n.reason}`).join("; ") ||
          "the security scan did not run",
      },
    };
  if (report.staticTests.length !== manifest.staticTests.length)
    return {
      ok: false,
      error: {
        reason: "report-mismatch",
        retryable: false,
        detail: `the report has ${report.staticTests.length} static tests, the manifest ${manifest.staticTests.length}`,
      },
    };
  if (e.codeQuality.length === 0)
    return {
      ok: false,
      error: {
        reason: "no-judgements",
        retryable: true,
        detail: "no judge returned a valid code-quality judgement",
      },
    };

  const categories: NonNullable<EngineeringInput["static"]["categories"]> = {};
  for (const t of report.staticTests) {
    const c = (categories[t.category] ??= { passed: 0, total: 0 });
    c.total += 1;
    if (t.status === "passed") c.passed += 1;
  }
  const passed = report.staticTests.filter((t) => t.status === "passed").length;

  const deliverableItems: DeliverableInput[] = manifest.deliverables
    .filter((d) => d.required)
    .map((spec) => {
      const judged = e.deliverables.find((d) => d.path === spec.path);
      if (!judged || judged.status !== "submitted")
        return { name: spec.path, status: judged?.status ?? "missing" };
      return { name: spec.path, status: "submitted" as const, judges: judged.judges };
    });
  const unjudged = deliverableItems.find(
    (d) => d.status === "submitted" && (d.judges ?? []).length === 0,
  );
  if (unjudged)
    return {
      ok: false,
      error: {
        reason: "no-judgements",
        retryable: true,
        detail: `no judge returned a valid judgement of ${unjudged.name}`,
      },
    };

  const notMeasured = [
    ...report.scan.notMeasured.map((n) => `${n.check}: ${n.reason}`),
    ...report.scan.skipped.map((s) => `${s.file} skipped: ${s.reason}`),
  ];
  return {
    ok: true,
    value: {
      profile: "engineering",
      static: {
        passed,
        total: report.staticTests.length,
        categories,
        // The suite's ids, for the board's paired comparison (docs/scoring.md); a report
        // whose ids repeat cannot be paired, and is scored without them.
        ...(new Set(report.staticTests.map((t) => t.id)).size === report.staticTests.length
          ? {
              tests: report.staticTests.map((t) => ({
                id: t.id,
                category: t.category,
                passed: t.status === "passed",
              })),
            }
          : {}),
      },
      adversarial: {
        tests: report.adversarialTests.map((t) => ({
          id: t.id,
          severity: t.severity,
          origin: t.origin,
          passed: t.status === "passed",
        })),
      },
      codeQuality: { judges: e.codeQuality },
      // A challenge without required deliverables still has the component: the engineering
      // spec weighs it at 15 %, so the absence of the (required) write-up is scored as missing.
      deliverables: {
        items:
          deliverableItems.length > 0
            ? deliverableItems
            : [{ name: "deliverables", status: "missing" }],
      },
      security: {
        findings: report.scan.findings.map((f) => ({
          cwe: f.cwe,
          severity: f.severity,
          rule: f.rule,
          tool: f.tool,
          file: f.file,
          line: f.line,
          message: f.message,
        })),
        ...(notMeasured.length ? { notMeasured } : {}),
      },
      stability: { verdict: report.stability.verdict, evidence: report.stability.evidence },
    },
  };
}
