import { describe, expect, it } from "vitest";
import { classifyTrajectory, formatDuration } from "../src/index.ts";

describe("trajectories", () => {
  it("classifies the engineering spec's examples", () => {
    expect(classifyTrajectory([85])).toBe("one-shot");
    expect(classifyTrajectory([60, 72, 78, 85])).toBe("improving");
    expect(classifyTrajectory([60, 85, 72, 85])).toBe("regression");
    expect(classifyTrajectory([60, 60, 60, 85])).toBe("last-jump");
  });
  it("needs three submissions for a last jump", () => {
    expect(classifyTrajectory([60, 85])).toBe("improving");
    expect(classifyTrajectory([60, 60, 60])).toBe("improving");
  });
  it("formats hours", () => expect(formatDuration(3_723_000)).toBe("1:02:03"));
  it("never pads the leading unit and rounds sub-seconds down", () => {
    expect(formatDuration(303_000)).toBe("5:03");
    expect(formatDuration(1_334_999)).toBe("22:14");
    expect(formatDuration(0)).toBe("0:00");
    expect(formatDuration(-5)).toBe("0:00");
  });
});
