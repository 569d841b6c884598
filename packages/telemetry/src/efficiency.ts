/**
 * @module telemetry/efficiency
 * Deterministic extraction of the agent-run spec's efficiency signals (docs/design.md §11) from a
 * trace: waste (unproductive actions), retry churn, tool misuse and token burn, each with the
 * actions (event `seq`s) that produced it. Invariants: the result depends only on the trace's
 * events in `seq` order; every count is at most `totalActions`; an action is listed at most once
 * per signal. Definitions with worked examples: docs/telemetry.md. Pure.
 */
import type { EfficiencyInput } from "@bouts/scoring";
import { clip, normalizePath } from "./text.ts";
import {
  isAction,
  type EditEvent,
  type TestRunEvent,
  type ToolCallEvent,
  type Trace,
} from "./trace.ts";

/** Why an action was unproductive. */
export type WasteRule = "failed-tool-call" | "test-run-error" | "reverted-edit";

/** One unproductive action. */
export interface WasteItem {
  seq: number;
  rule: WasteRule;
  detail: string;
}

/** One repeated identical action, and the earlier action it repeated. */
export interface RepeatItem {
  seq: number;
  repeatOf: number;
  detail: string;
}

/** Everything behind the efficiency figures, for the breakdown. */
export interface EfficiencyEvidence {
  totalActions: number;
  unproductive: WasteItem[];
  retryChurn: RepeatItem[];
  toolMisuse: RepeatItem[];
  tokens: {
    used: number | null;
    budget: number | null;
    /** Events that reported tokens. */
    events: number;
  };
}

/** The engine's efficiency input (null when the trace has no actions) and its evidence. */
export interface EfficiencyExtraction {
  input: EfficiencyInput | null;
  evidence: EfficiencyEvidence;
}

/** Options of {@link extractEfficiency}. */
export interface ExtractEfficiencyOptions {
  /** The challenge's token budget; null or absent → token burn is not measured. */
  tokenBudget?: number | null;
}

type Action = ToolCallEvent | EditEvent | TestRunEvent;

/** The identity of an action for repeat detection; edits have none (they change the code). */
function actionKey(a: Action): string | null {
  if (a.type === "tool_call") return `tool\u0000${a.name}\u0000${a.argsDigest}`;
  if (a.type === "test_run") return `test\u0000${a.command}\u0000${(a.tests ?? []).join("\u0000")}`;
  return null;
}

/** Did the action fail (a failed tool call, a suite that did not run or had failures)? */
function actionFailed(a: Action): boolean {
  if (a.type === "tool_call") return a.outcome === "error";
  if (a.type === "test_run") return a.outcome === "error" || a.failed > 0;
  return false;
}

function describeAction(a: Action): string {
  if (a.type === "tool_call") return `tool ${clip(a.name, 60)}`;
  if (a.type === "test_run") return `test run ${JSON.stringify(clip(a.command, 80))}`;
  return `${a.kind} ${clip(a.path, 100)}`;
}

/** Content before/after an edit: a digest, null for "no file", undefined for "unknown". */
function editStates(e: EditEvent): {
  before: string | null | undefined;
  after: string | null | undefined;
} {
  return {
    before: e.before !== undefined ? e.before : e.kind === "create" ? null : undefined,
    after: e.after !== undefined ? e.after : e.kind === "delete" ? null : undefined,
  };
}

/**
 * Reverted edits: for each edit E_j on a path, the earliest edit E_i (i ≤ j) on the same
 * path whose content-before equals E_j's content-after; E_i…E_j are then a net no-op and
 * every one of them is unproductive. Returns seq → the span's first and closing edits.
 */
export function findRevertedEdits(
  edits: readonly EditEvent[],
): Map<number, { opener: number; closer: number }> {
  const byPath = new Map<string, EditEvent[]>();
  for (const e of edits) {
    const path = normalizePath(e.path);
    const list = byPath.get(path) ?? [];
    list.push(e);
    byPath.set(path, list);
  }
  const reverted = new Map<number, { opener: number; closer: number }>();
  for (const list of byPath.values()) {
    for (let j = 0; j < list.length; j++) {
      const closing = list[j] as EditEvent;
      const after = editStates(closing).after;
      if (after === undefined) continue;
      for (let i = 0; i <= j; i++) {
        if (editStates(list[i] as EditEvent).before !== after) continue;
        const opener = (list[i] as EditEvent).seq;
        for (let k = i; k <= j; k++) {
          const seq = (list[k] as EditEvent).seq;
          if (!reverted.has(seq)) reverted.set(seq, { opener, closer: closing.seq });
        }
        break;
      }
    }
  }
  return reverted;
}

/**
 * Extracts the efficiency signals of a trace for the engine's published formula.
 *
 * - **actions**: tool calls, edits and test runs (messages are not actions);
 * - **unproductive**: failed tool calls, test runs that could not run, reverted edits;
 * - **retry churn**: an action identical to an earlier one (same tool and arguments
 *   digest, or same test command and selection) with no edit between them, when the earlier
 *   one failed;
 * - **tool misuse**: the same, when the earlier one succeeded (its result was not used
 *   before asking again: a repeated identical query);
 * - **tokens**: the sum of every event's tokensIn + tokensOut (null when none reports any).
 *
 * @example
 * const { input, evidence } = extractEfficiency(trace, { tokenBudget: 200_000 });
 * // input → computeAgent({ …, efficiency: input }); evidence.retryChurn[0].seq → the repeat
 */
export function extractEfficiency(
  trace: Trace,
  options: ExtractEfficiencyOptions = {},
): EfficiencyExtraction {
  const actions = trace.events.filter(isAction);
  const edits = actions.filter((a): a is EditEvent => a.type === "edit");
  const reverted = findRevertedEdits(edits);

  const unproductive: WasteItem[] = [];
  const retryChurn: RepeatItem[] = [];
  const toolMisuse: RepeatItem[] = [];
  const lastByKey = new Map<string, Action>();

  for (const a of actions) {
    if (a.type === "edit") {
      // An edit changes the world: identical actions before and after it are not repeats.
      lastByKey.clear();
      const span = reverted.get(a.seq);
      if (span !== undefined)
        unproductive.push({
          seq: a.seq,
          rule: "reverted-edit",
          detail:
            span.closer !== a.seq
              ? `${describeAction(a)} undone by seq ${span.closer}`
              : span.opener !== a.seq
                ? `${describeAction(a)} undoes seq ${span.opener}`
                : `${describeAction(a)} left the file as it was`,
        });
      continue;
    }
    if (a.type === "tool_call" && a.outcome === "error")
      unproductive.push({
        seq: a.seq,
        rule: "failed-tool-call",
        detail: `${describeAction(a)} failed`,
      });
    if (a.type === "test_run" && a.outcome === "error")
      unproductive.push({
        seq: a.seq,
        rule: "test-run-error",
        detail: `${describeAction(a)} could not run`,
      });

    const key = actionKey(a) as string;
    const prev = lastByKey.get(key);
    if (prev) {
      const item = {
        seq: a.seq,
        repeatOf: prev.seq,
        detail: `${describeAction(a)} repeats seq ${prev.seq} with no edit between`,
      };
      if (actionFailed(prev))
        retryChurn.push({ ...item, detail: `${item.detail} (it had failed)` });
      else toolMisuse.push({ ...item, detail: `${item.detail} (its result was already there)` });
    }
    lastByKey.set(key, a);
  }
  unproductive.sort((x, y) => x.seq - y.seq);

  let used = 0;
  let tokenEvents = 0;
  for (const e of trace.events) {
    if (e.type === "test_run") continue;
    if (e.tokensIn === undefined && e.tokensOut === undefined) continue;
    tokenEvents++;
    used += (e.tokensIn ?? 0) + (e.tokensOut ?? 0);
  }
  const tokensUsed = tokenEvents > 0 ? used : null;
  const tokenBudget = options.tokenBudget ?? null;

  const evidence: EfficiencyEvidence = {
    totalActions: actions.length,
    unproductive,
    retryChurn,
    toolMisuse,
    tokens: { used: tokensUsed, budget: tokenBudget, events: tokenEvents },
  };
  if (actions.length === 0) return { input: null, evidence };
  return {
    input: {
      totalActions: actions.length,
      unproductiveActions: unproductive.length,
      retryChurnActions: retryChurn.length,
      toolMisuseActions: toolMisuse.length,
      tokensUsed,
      tokenBudget,
    },
    evidence,
  };
}
