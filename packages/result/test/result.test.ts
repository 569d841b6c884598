import { describe, expect, expectTypeOf, it } from "vitest";
import { err, ok, type Result } from "../src/index.ts";

describe("result", () => {
  it("wraps a success and a failure", () => {
    expect(ok(1)).toEqual({ ok: true, value: 1 });
    expect(err({ reason: "odd" })).toEqual({ ok: false, error: { reason: "odd" } });
  });
  it("narrows on ok", () => {
    const r: Result<number, { reason: "odd" }> =
      Math.abs(-3) % 2 === 0 ? ok(2) : err({ reason: "odd" });
    if (r.ok) expectTypeOf(r.value).toEqualTypeOf<number>();
    else expectTypeOf(r.error).toEqualTypeOf<{ reason: "odd" }>();
    expect(r.ok).toBe(false);
  });
});
