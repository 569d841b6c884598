/**
 * extractUsage: tokens per model (event model over header model, unattributed kept apart),
 * silence as "not measured", wall time from the trace, and OTel spans naming their model.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractUsage, parseTrace, type Trace } from "../src/index.ts";
import { buildTrace, edit, message, testRun, tool, toJsonl } from "./build.ts";

const withModel = (trace: Trace, model: string): Trace => ({
  ...trace,
  header: { ...trace.header, model },
});

describe("extractUsage", () => {
  it("sums tokens per model, an event's own model winning over the header's", () => {
    const trace = withModel(
      buildTrace([
        message(1, "assistant", { tokensIn: 1000, tokensOut: 200 }),
        tool(2, "read_file", "{}", { tokensIn: 50 }),
        message(3, "assistant", { tokensIn: 7, tokensOut: 3, model: "judge-mini" }),
        edit(4, "a.ts", "modify", { tokensOut: 11 }),
      ]),
      "model-a",
    );
    const usage = extractUsage(trace);
    expect(usage.tokens).toEqual({
      models: [
        { model: "judge-mini", tokensIn: 7, tokensOut: 3, events: 1 },
        { model: "model-a", tokensIn: 1050, tokensOut: 211, events: 3 },
      ],
      tokensIn: 1057,
      tokensOut: 214,
      events: 4,
    });
  });

  it("keeps tokens no model is named for under model null, listed last", () => {
    const usage = extractUsage(
      buildTrace([
        message(1, "assistant", { tokensIn: 5 }),
        message(2, "assistant", { tokensIn: 9, model: "zeta" }),
      ]),
    );
    expect(usage.tokens?.models.map((m) => m.model)).toEqual(["zeta", null]);
  });

  it("answers tokens null (not measured) when no event reports any, never zero", () => {
    const usage = extractUsage(buildTrace([message(1), tool(2, "ls"), testRun(3, 1, 0)]));
    expect(usage.tokens).toBeNull();
    expect(usage.wallMs).toBe(2000);
  });

  it("counts an event that reports zero tokens as measured", () => {
    const usage = extractUsage(buildTrace([message(1, "assistant", { tokensIn: 0 })]));
    expect(usage.tokens).toMatchObject({ tokensIn: 0, tokensOut: 0, events: 1 });
  });

  it("measures wall time from startedAt to the end of the last event", () => {
    const trace = buildTrace([tool(1, "a"), tool(5, "b", "{}", { durationMs: 1500 })]);
    trace.header.startedAt = new Date(Date.parse(trace.events[0]!.ts) - 4000).toISOString();
    expect(extractUsage(trace).wallMs).toBe(4000 + 4000 + 1500);
    expect(extractUsage(buildTrace([])).wallMs).toBeNull();
  });

  it("reads per-event models from JSONL and refuses an empty model name", () => {
    const ok = parseTrace(
      toJsonl([
        {
          type: "message",
          seq: 1,
          ts: "2026-03-02T09:00:07Z",
          role: "assistant",
          tokensIn: 4,
          model: "m-1",
        },
      ]),
    );
    expect(ok.ok && extractUsage(ok.value).tokens?.models[0]?.model).toBe("m-1");
    const bad = parseTrace(
      toJsonl([
        { type: "message", seq: 1, ts: "2026-03-02T09:00:07Z", role: "assistant", model: "" },
      ]),
    );
    expect(bad.ok).toBe(false);
  });

  it("takes each OTel span's response model, else its request model", () => {
    const attr = (key: string, v: string | number) =>
      typeof v === "string" ? { key, value: { stringValue: v } } : { key, value: { intValue: v } };
    const chat = (sec: number, attrs: ReturnType<typeof attr>[]) => ({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: `b7ad6b7100000${sec}00`,
      name: "chat",
      kind: 1,
      startTimeUnixNano: String(BigInt(1_767_225_600 + sec) * 1_000_000_000n),
      endTimeUnixNano: String(BigInt(1_767_225_601 + sec) * 1_000_000_000n),
      attributes: [attr("gen_ai.operation.name", "chat"), ...attrs],
    });
    const r = parseTrace(
      JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  chat(1, [
                    attr("gen_ai.request.model", "big"),
                    attr("gen_ai.response.model", "big-2026-01"),
                    attr("gen_ai.usage.input_tokens", 100),
                  ]),
                  chat(2, [
                    attr("gen_ai.request.model", "small"),
                    attr("gen_ai.usage.output_tokens", 8),
                  ]),
                ],
              },
            ],
          },
        ],
      }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(extractUsage(r.value).tokens?.models).toEqual([
      { model: "big-2026-01", tokensIn: 100, tokensOut: 0, events: 1 },
      { model: "small", tokensIn: 0, tokensOut: 8, events: 1 },
    ]);
    // Messages carry no duration: the run ends where the last one starts.
    expect(extractUsage(r.value).wallMs).toBe(1000);
  });

  it("totals equal the sum over models, for any trace", () => {
    const event = fc.record({
      tokensIn: fc.option(fc.integer({ min: 0, max: 1e9 }), { nil: undefined }),
      tokensOut: fc.option(fc.integer({ min: 0, max: 1e9 }), { nil: undefined }),
      model: fc.option(fc.constantFrom("a", "b", "c"), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        const trace = buildTrace(
          events.map((e, i) =>
            message(
              i + 1,
              "assistant",
              Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined)),
            ),
          ),
        );
        const tokens = extractUsage(trace).tokens;
        const reported = events.filter(
          (e) => e.tokensIn !== undefined || e.tokensOut !== undefined,
        );
        if (reported.length === 0) return tokens === null;
        const sumIn = reported.reduce((n, e) => n + (e.tokensIn ?? 0), 0);
        return tokens !== null && tokens.tokensIn === sumIn && tokens.events === reported.length;
      }),
    );
  });
});
