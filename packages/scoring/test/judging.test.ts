import { describe, expect, it } from "vitest";
import { computeAgent, computeEngineering, type JudgeProvenance } from "../src/index.ts";
import { buildAgent, buildEngineering, cq, dj } from "./fixtures.ts";

const HEURISTIC: JudgeProvenance = { kind: "heuristic", method: "static analysis" };
const model = (m: string): JudgeProvenance => ({ kind: "model", provider: "workers-ai", model: m });
const withProvenance = <T extends object>(j: T, provenance: JudgeProvenance) => ({
  ...j,
  provenance,
});

const heuristicEngineering = () =>
  buildEngineering({
    codeQuality: {
      judges: ["a", "b", "c"].map((id) => withProvenance(cq(id, 80), HEURISTIC)),
    },
    deliverables: {
      items: [
        {
          name: "NOTES.md",
          status: "submitted",
          judges: ["a", "b", "c"].map((id) => withProvenance(dj(id, 70), HEURISTIC)),
        },
      ],
    },
  });

const engineering = (input: Parameters<typeof computeEngineering>[0]) => {
  const r = computeEngineering(input);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
};

describe("judge provenance", () => {
  it("names a heuristic panel, and flags it, without changing any number", () => {
    const plain = engineering(
      buildEngineering({
        codeQuality: { judges: ["a", "b", "c"].map((id) => cq(id, 80)) },
        deliverables: {
          items: [
            {
              name: "NOTES.md",
              status: "submitted",
              judges: ["a", "b", "c"].map((id) => dj(id, 70)),
            },
          ],
        },
      }),
    );
    const b = engineering(heuristicEngineering());
    expect(b.judging.panel).toBe("heuristic");
    expect(b.judging.judges.map((j) => [j.judge, j.kind, j.components])).toEqual([
      ["a", "heuristic", ["codeQuality", "deliverables"]],
      ["b", "heuristic", ["codeQuality", "deliverables"]],
      ["c", "heuristic", ["codeQuality", "deliverables"]],
    ]);
    expect(b.judging.summary).toContain("offline heuristic panel");
    expect(b.flags).toContainEqual({
      code: "heuristic-judges",
      component: null,
      message: b.judging.summary,
    });
    expect(b.final).toEqual(plain.final);
    expect(plain.judging.panel).toBe("unspecified");
    expect(plain.flags.some((f) => f.code === "heuristic-judges")).toBe(false);
  });

  it("names each model of a model panel and raises no heuristic flag", () => {
    const b = engineering(
      buildEngineering({
        codeQuality: {
          judges: ["llama", "qwen", "hermes"].map((m) => withProvenance(cq(m, 90), model(m))),
        },
        deliverables: {
          items: [
            {
              name: "NOTES.md",
              status: "submitted",
              judges: ["llama", "qwen", "hermes"].map((m) => withProvenance(dj(m, 90), model(m))),
            },
          ],
        },
      }),
    );
    expect(b.judging.panel).toBe("model");
    expect(b.judging.summary).toBe(
      "Judged by model judges: workers-ai:llama, workers-ai:qwen, workers-ai:hermes graded code quality, deliverables.",
    );
    expect(b.flags.map((f) => f.code)).not.toContain("heuristic-judges");
  });

  it("calls a panel with one heuristic judge among models mixed, and flags it", () => {
    // A model panel whose third seat quietly fell back to static analysis must not read as models.
    const b = engineering(
      buildEngineering({
        codeQuality: {
          judges: [
            withProvenance(cq("llama", 90), model("llama")),
            withProvenance(cq("qwen", 90), model("qwen")),
            withProvenance(cq("offline-structure", 90), HEURISTIC),
          ],
        },
      }),
    );
    expect(b.judging.panel).toBe("mixed");
    expect(b.flags.find((f) => f.code === "heuristic-judges")?.message).toContain(
      "offline-structure",
    );
  });

  it("does not flag a model panel beside judges of unspecified provenance as heuristic", () => {
    const b = engineering(
      buildEngineering({
        codeQuality: {
          judges: ["llama", "qwen", "hermes"].map((m) => withProvenance(cq(m, 90), model(m))),
        },
      }),
    );
    expect(b.judging.panel).toBe("mixed");
    expect(b.judging.summary).toContain("unspecified j1, j2, j3");
    expect(b.flags.map((f) => f.code)).not.toContain("heuristic-judges");
  });

  it("refuses a judge that claims two provenances in one input", () => {
    const input = heuristicEngineering();
    input.deliverables.items[0]!.judges![0] = withProvenance(dj("a", 70), model("gpt"));
    const r = computeEngineering(input);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error).toMatchObject({
        reason: "invalid-input",
        field: "deliverables.items[0].judges[0].provenance",
      });
  });

  it("names the field of a malformed provenance", () => {
    const input = heuristicEngineering();
    (input.codeQuality.judges[1] as { provenance: unknown }).provenance = { kind: "oracle" };
    const r = computeEngineering(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ field: "codeQuality.judges[1].provenance.kind" });
  });

  it("sums up an agent run once, the Objective's judges included, with one flag", () => {
    const base = buildAgent();
    const trace = (k: "process" | "strategy" | "recovery") => ({
      judges: base[k].judges.map((j) => withProvenance(j, HEURISTIC)),
    });
    const r = computeAgent({
      ...base,
      objective: heuristicEngineering(),
      process: trace("process"),
      strategy: trace("strategy"),
      recovery: trace("recovery"),
    });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.judging.panel).toBe("heuristic");
    expect(r.value.flags.filter((f) => f.code === "heuristic-judges")).toHaveLength(1);
    const components = new Set(r.value.judging.judges.flatMap((j) => j.components));
    expect([...components].sort()).toEqual(
      ["codeQuality", "deliverables", "process", "recovery", "strategy"].sort(),
    );
    expect(r.value.objective?.judging.panel).toBe("heuristic");
  });
});
