import { describe, expect, it } from "vitest";
import { IntegrityEvidenceSchema } from "../src/evidence.ts";

describe("integrity evidence", () => {
  it("rejects an unknown trigger", () => {
    expect(IntegrityEvidenceSchema.safeParse({ trigger: "nope", citation: "x" }).success).toBe(
      false,
    );
  });
  it("defaults the count to one", () => {
    expect(
      IntegrityEvidenceSchema.parse({ trigger: "network-attempt", citation: "3 blocked" }).count,
    ).toBe(1);
  });
});
