/**
 * The breakdown contract (`BreakdownViewSchema` of @bouts/contracts) as the OpenAPI generator
 * of the API renders it: every component's `details` is described (no free-form record), both
 * views are accepted, and the nested Objective breakdown is spelled out (the schema is not
 * recursive, so the generator needs no named reference to stop).
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { BreakdownViewSchema } from "@bouts/contracts";
import { describe, expect, it } from "vitest";

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  enum?: unknown[];
  required?: string[];
  additionalProperties?: unknown;
};

function documentFor(schema: z.ZodType): Schema {
  const app = new OpenAPIHono();
  app.openAPIRegistry.register("BreakdownProbe", z.object({ breakdown: schema }));
  const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
  const probe = (doc.components?.schemas as Record<string, Schema>)["BreakdownProbe"]!;
  return probe.properties!["breakdown"]!;
}

const byKey = (components: Schema): Map<string, Schema> =>
  new Map(
    components.items!.oneOf!.map((c) => [String(c.properties!["key"]!.enum![0]), c] as const),
  );

describe("the breakdown in the OpenAPI document", () => {
  const breakdown = documentFor(BreakdownViewSchema);

  it("describes each component's details by its key", () => {
    const components = byKey(breakdown.properties!["components"]!);
    expect([...components.keys()].sort()).toEqual(
      [
        "adversarial",
        "codeQuality",
        "deliverables",
        "efficiency",
        "objective",
        "process",
        "recovery",
        "security",
        "stability",
        "static",
        "strategy",
      ].sort(),
    );
    const staticDetails = components.get("static")!.properties!["details"]!;
    expect(staticDetails.required).toEqual(["passed", "total", "categories"]);
    expect(staticDetails.additionalProperties).toBe(false);
    expect(staticDetails.properties!["passed"]!.type).toBe("integer");
    const judged = components.get("process")!.properties!["details"]!;
    expect(judged.properties!["rule"]!.enum).toContain("outlier-discarded");
    const efficiency = components.get("efficiency")!.properties!["details"]!;
    expect(efficiency.properties!["tokensUsed"]!.type).toEqual(["number", "null"]);
  });

  it("takes either view of security and stability", () => {
    const components = byKey(breakdown.properties!["components"]!);
    const security = components.get("security")!.properties!["details"]!;
    const findings = (security.anyOf ?? security.oneOf)!.map((d) =>
      Object.keys(d.properties!["findings"]!.items!.properties!).sort(),
    );
    expect(findings).toEqual([
      ["cwe", "deduction", "file", "line", "rule", "severity", "tool"],
      ["cwe", "deduction", "severity"],
    ]);
  });

  it("describes what each figure rests on, optional so older breakdowns stay valid", () => {
    const kinds = ["cross-checked", "observed", "self-reported"];
    for (const [key, c] of byKey(breakdown.properties!["components"]!)) {
      const provenance = c.properties!["provenance"]!;
      expect(c.required, key).not.toContain("provenance");
      expect([...provenance.properties!["kind"]!.enum!].sort()).toEqual(kinds);
      expect(provenance.required).toEqual(["kind", "basis", "cap"]);
      const cap = provenance.properties!["cap"]!;
      const capObject = (cap.anyOf ?? cap.oneOf ?? [cap]).find((v) => v.properties);
      expect(Object.keys(capObject!.properties!)).toEqual(["max", "uncapped"]);
    }
    const adjustment = breakdown.properties!["adjustments"]!.items!;
    expect(adjustment.required).not.toContain("provenance");
    expect(Object.keys(adjustment.properties!["provenance"]!.properties!)).toEqual([
      "kind",
      "basis",
    ]);
    const line = adjustment.properties!["evidence"]!.items!;
    expect([...line.properties!["provenance"]!.enum!].sort()).toEqual(kinds);
    expect(line.required).toEqual(["item", "points", "citation"]);
    const efficiency = byKey(breakdown.properties!["components"]!).get("efficiency")!;
    const details = efficiency.properties!["details"]!;
    expect([...details.properties!["tokensProvenance"]!.enum!].sort()).toEqual(kinds);
    expect(details.required).not.toContain("tokensProvenance");
  });

  it("spells out the nested Objective breakdown, which nests none", () => {
    const objective = breakdown.properties!["objective"]!;
    expect(objective.type).toEqual(["object", "null"]);
    expect(byKey(objective.properties!["components"]!).size).toBe(11);
    expect(objective.properties!["objective"]!.type).toBe("null");
  });
});
