/**
 * @module adversarial/deterministic
 * The offline generator: candidates from the challenge's declared interface, a base drawn by the
 * platform-keyed seed until the generated weight budget is filled (the whole pool when it fits),
 * tests aimed at what reading the comment-stripped code points at added on top, written as one
 * test file. Needs no network and no model, so every run gets generated tests. Pure.
 * Invariant: no byte of the submission seeds anything; its code can only add hinted tests.
 */
import type { GeneratedSuite, GeneratedTestSpec, InterfaceSpec, Runtime } from "@bouts/contracts";
import { drawCandidates } from "./budget.ts";
import type { Candidate } from "./candidate.ts";
import type { AdversarialGenerator, GenerationResult } from "./generator.ts";
import { applyHints, readCodeHints, type HintTargets } from "./hints.ts";
import { buildHttpCandidates, type HttpCandidate } from "./http.ts";
import { buildModuleCandidates, type ModuleCandidate } from "./module.ts";
import { writeHttpJs } from "./write-http.ts";
import { jsTestName, pyTestName, writeModuleJs, writeModulePy } from "./write-module.ts";

/** The generator's name in reports. */
export const DETERMINISTIC_GENERATOR = "deterministic-interface";

/** Where the deterministic suite lives under the workspace's tests/ folder. */
export const DETERMINISTIC_FILES = {
  node22: "generated/deterministic.test.mjs",
  "python3.11": "generated/test_deterministic.py",
} as const satisfies Record<Runtime, string>;

type AnyCandidate = ModuleCandidate | HttpCandidate;

/** Every candidate the interface yields for the runtime, or why there are none. */
export function buildCandidates(
  iface: InterfaceSpec,
  runtime: Runtime,
): { ok: true; value: AnyCandidate[] } | { ok: false; detail: string } {
  if (iface.kind === "module") return { ok: true, value: buildModuleCandidates(iface, runtime) };
  if (runtime !== "node22")
    return { ok: false, detail: "HTTP interfaces are generated for Node challenges only" };
  return { ok: true, value: buildHttpCandidates(iface) };
}

function hintTargets(iface: InterfaceSpec): HintTargets {
  if (iface.kind === "module")
    return {
      params: new Map(iface.functions.map((f) => [f.name, f.params.map((p) => p.name)])),
      unique: [],
    };
  return {
    params: new Map(
      iface.routes.map((r) => [r.id, [...(r.body ?? []), ...r.query].map((p) => p.name)]),
    ),
    unique: iface.routes.filter((r) => r.unique).map((r) => r.id),
  };
}

/** Writes `chosen` as the runtime's test file and lists each test's spec. */
export function writeDeterministicSuite(
  iface: InterfaceSpec,
  runtime: Runtime,
  chosen: readonly (AnyCandidate & { rationale?: string })[],
): GeneratedSuite {
  const file = DETERMINISTIC_FILES[runtime];
  const content =
    iface.kind === "http"
      ? writeHttpJs(iface, chosen as HttpCandidate[])
      : runtime === "node22"
        ? writeModuleJs(iface, chosen as ModuleCandidate[])
        : writeModulePy(iface, chosen as ModuleCandidate[]);
  const tests: GeneratedTestSpec[] = chosen.map((c) => ({
    id: c.id,
    file,
    name: runtime === "node22" ? jsTestName(c) : pyTestName(c),
    severity: c.severity,
    technique: c.technique,
    target: c.target.slice(0, 120),
    rationale: (c.rationale ?? c.defaultRationale).slice(0, 300),
  }));
  return {
    generator: { name: DETERMINISTIC_GENERATOR, kind: "deterministic", model: null },
    files: [{ path: file, content }],
    tests,
  };
}

/** Creates the deterministic, interface-driven generator. */
export function createDeterministicGenerator(): AdversarialGenerator {
  return {
    name: DETERMINISTIC_GENERATOR,
    kind: "deterministic",
    model: null,
    generate(input): Promise<GenerationResult> {
      if (!input.interface)
        return Promise.resolve({
          ok: false,
          error: { reason: "not-declared", detail: "the challenge declares no interface" },
        });
      const built = buildCandidates(input.interface, input.runtime);
      if (!built.ok)
        return Promise.resolve({
          ok: false,
          error: { reason: "unavailable", detail: built.detail },
        });
      const excluded = new Set(input.exclude);
      const hints = readCodeHints(input.sources, hintTargets(input.interface));
      const pool = built.value
        .filter((c) => !excluded.has(c.id))
        .map((c: Candidate<unknown>) => {
          const h = applyHints(hints, c.key);
          return {
            ...c,
            priority: h.priority,
            rationale: h.reason ? `targeted: ${h.reason}` : c.defaultRationale,
          };
        }) as (AnyCandidate & { rationale: string })[];
      const draw = drawCandidates(
        pool,
        input.budget.weightHalves,
        input.budget.maxTests,
        input.seed,
      );
      const chosen = draw.chosen;
      const notes = [
        draw.wholePool
          ? `the whole pool runs (${pool.length} candidates fit the budget)`
          : `drew ${draw.base.length} of ${pool.length} candidates; code reading added ${draw.added.length}`,
        ...hints.map((h) => `code reading: ${h.reason}`),
      ];
      return Promise.resolve({
        ok: true,
        value: {
          suite: writeDeterministicSuite(input.interface, input.runtime, chosen),
          candidates: pool.length,
          notes,
        },
      });
    },
  };
}
