import { describe, expect, it } from "vitest";
import {
  assessEndpointHealth,
  DISABLE_MIN_FAILURES,
  HEALTHY_ENDPOINT,
  recordDeliveryAttempt,
  type DeliveryOutcome,
  type EndpointHealthHistory,
} from "../src/index.ts";

const T0 = new Date("2026-03-01T00:00:00Z");
const at = (hours: number) => new Date(T0.getTime() + hours * 3600_000);

function replay(
  attempts: [hours: number, outcome: DeliveryOutcome["outcome"]][],
): EndpointHealthHistory {
  return attempts.reduce(
    (h, [hours, outcome]) => recordDeliveryAttempt(h, outcome, at(hours)),
    HEALTHY_ENDPOINT,
  );
}

/** One failure every `everyHours` from hour 0 up to `untilHours`. */
const failures = (untilHours: number, everyHours = 6) =>
  Array.from(
    { length: Math.floor(untilHours / everyHours) + 1 },
    (_, i) => [i * everyHours, "retry"] as [number, "retry"],
  );

describe("recordDeliveryAttempt", () => {
  it("starts a failure streak at the first failure and resets it on success", () => {
    const failing = replay([
      [0, "delivered"],
      [1, "retry"],
      [2, "failed"],
    ]);
    expect(failing).toEqual({
      failingSince: at(1),
      consecutiveFailures: 2,
      lastSuccessAt: at(0),
      gone: false,
    });
    expect(recordDeliveryAttempt(failing, "delivered", at(3))).toEqual({
      failingSince: null,
      consecutiveFailures: 0,
      lastSuccessAt: at(3),
      gone: false,
    });
  });
});

describe("assessEndpointHealth", () => {
  it("disables at once after 410 Gone, saying so", () => {
    const h = replay([[0, "disable"]]);
    const r = assessEndpointHealth(h, at(0));
    expect(r).toMatchObject({ action: "disable", reason: "gone" });
    if (r.action === "disable") expect(r.message).toContain("410 Gone");
  });

  it("disables after five days of continuous failure, with the dates in the message", () => {
    const h = replay(failures(120));
    const r = assessEndpointHealth(h, at(120));
    expect(r).toMatchObject({ action: "disable", reason: "failing" });
    if (r.action === "disable") {
      expect(r.message).toContain("2026-03-01T00:00:00.000Z");
      expect(r.message).toContain("21 attempts over 5 days");
    }
  });

  it("keeps an endpoint failing for just under five days", () => {
    expect(assessEndpointHealth(replay(failures(119)), at(119.99))).toEqual({ action: "keep" });
  });

  it("keeps an endpoint whose streak was broken by one success", () => {
    const h = replay([
      ...failures(60),
      [61, "delivered"],
      ...failures(59).map(([t, o]) => [t + 62, o] as [number, "retry"]),
    ]);
    expect(assessEndpointHealth(h, at(125))).toEqual({ action: "keep" });
  });

  it("needs enough failed attempts, not only elapsed time", () => {
    const sparse = replay([
      [0, "retry"],
      [130, "retry"],
    ]);
    expect(sparse.consecutiveFailures).toBeLessThan(DISABLE_MIN_FAILURES);
    expect(assessEndpointHealth(sparse, at(130))).toEqual({ action: "keep" });
  });

  it("keeps a healthy endpoint", () => {
    expect(assessEndpointHealth(HEALTHY_ENDPOINT, at(1000))).toEqual({ action: "keep" });
  });
});
