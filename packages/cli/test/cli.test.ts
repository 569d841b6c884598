/**
 * The bouts command's own parts: the packer leaves out exactly the validator's dependency
 * folders and VCS folders and refuses symlinks; the key is refused on the command line and
 * read from the environment or a private config file only; the renderings, and the cleaning
 * of text from the API before it reaches a terminal. (The commands against the Worker:
 * cli-platform.test.ts.)
 */
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { Schemas } from "@bouts/client";
import {
  cleanField,
  listSubmissionFiles,
  loadConfig,
  main,
  packFolder,
  renderBoardMessage,
  renderLeaderboard,
  renderProblem,
  stripTerminalControls,
} from "../src/index.ts";

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bouts-cli-"));
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), text);
  }
  return dir;
}

describe("packing a folder", () => {
  it("leaves out dependency and VCS folders, keeps everything else", () => {
    const dir = folder({
      "app.mjs": "x",
      "NOTES.md": "n",
      "src/lib.mjs": "y",
      "node_modules/left-pad/index.js": "z",
      "src/__pycache__/a.pyc": "c",
      ".venv/bin/python": "p",
      ".git/HEAD": "h",
      ".env.example": "e",
    });
    expect(listSubmissionFiles(dir)).toEqual([
      ".env.example",
      "NOTES.md",
      "app.mjs",
      "src/lib.mjs",
    ]);
    const { archive } = packFolder(dir);
    const tar = gunzipSync(archive).toString("latin1");
    expect(tar).toContain("src/lib.mjs");
    expect(tar).not.toContain("left-pad");
  });

  it("refuses a symbolic link rather than follow it out of the folder", () => {
    const dir = folder({ "app.mjs": "x" });
    symlinkSync("/etc/passwd", path.join(dir, "secrets"));
    expect(() => listSubmissionFiles(dir)).toThrow(/symbolic link/);
  });
});

describe("the key", () => {
  it("is refused as an argument, in every spelling", async () => {
    for (const argv of [
      ["status", "s1", "--key", "k"],
      ["status", "s1", "--api-key=k"],
      ["status", "bouts_0123456789abcdef01234567_secret"],
    ]) {
      const err: string[] = [];
      expect(await main(argv, { out: () => {}, err: (l) => err.push(l), env: {} })).toBe(2);
      expect(err.join("\n")).toMatch(/visible to every user in `ps`/);
    }
  });

  it("comes from BOUTS_API_KEY before the config file, and a readable file is refused", () => {
    const dir = folder({ "config.json": JSON.stringify({ apiUrl: "http://x", key: "from-file" }) });
    const file = path.join(dir, "config.json");
    chmodSync(file, 0o600);
    expect(loadConfig({ BOUTS_CONFIG: file })).toEqual({ apiUrl: "http://x", key: "from-file" });
    expect(loadConfig({ BOUTS_CONFIG: file, BOUTS_API_KEY: "env" }).key).toBe("env");
    chmodSync(file, 0o644);
    expect(() => loadConfig({ BOUTS_CONFIG: file })).toThrow(/chmod 600/);
    expect(loadConfig({ BOUTS_CONFIG: path.join(dir, "none.json") }).key).toBeNull();
  });

  it("is required by the agent's commands", async () => {
    const env = { BOUTS_CONFIG: "/nonexistent/config.json" };
    for (const argv of [
      ["submissions", "c"],
      ["history", "s1"],
      ["final-choices", "c"],
      ["choose-final", "c", "s1"],
      ["webhooks", "list"],
    ]) {
      const err: string[] = [];
      expect(await main(argv, { err: (l) => err.push(l), env })).toBe(2);
      expect(err[0]).toMatch(/no key/);
    }
  });

  it("is required by status", async () => {
    const err: string[] = [];
    const env = { BOUTS_CONFIG: "/nonexistent/config.json" };
    expect(await main(["status", "s1"], { err: (l) => err.push(l), env })).toBe(2);
    expect(err[0]).toMatch(/no key/);
  });
});

describe("the command line", () => {
  it("answers an unknown option or a bad number with the usage, exit 2", async () => {
    const env = { BOUTS_CONFIG: "/nonexistent/config.json" };
    for (const [argv, message] of [
      [["leaderboard", "c", "--bogus"], /Unknown option '--bogus'/],
      [["leaderboard", "c", "--limit", "ten"], /--limit takes an integer ≥ 1, not "ten"/],
      [["history", "s1", "--after", "-1"], /--after/],
      [["leaderboard", "c", "--sort", "fame"], /--sort is rank or cost/],
      [["webhooks", "rotate", "wh_1"], /unknown webhooks action: rotate/],
      [["history", "s1", "--challenge", "c"], /a submission id or --challenge, not both/],
    ] as const) {
      const err: string[] = [];
      expect(await main([...argv], { err: (l) => err.push(l), env })).toBe(2);
      expect(err.join("\n")).toMatch(message);
      expect(err.join("\n")).toContain("usage: bouts <command>");
    }
  });
});

// ─── Renderings ───

type Page = Schemas["LeaderboardPage"];
type Entry = Page["entries"][number];

const COST = { status: "not-measured", usd: null } as unknown as Entry["cost"];

/** A board entry: rank `rank`, certain unless `range` says otherwise. */
function entry(rank: number, score: number, over: Partial<Entry> = {}): Entry {
  return {
    rank,
    rankRange: { best: rank, worst: rank },
    tied: false,
    interval: { low: score - 2, high: score + 2 },
    agentId: `a${rank}`,
    agentName: null,
    score,
    iterations: 1,
    timeToFinalMs: 1000,
    submittedAt: "2026-11-30T08:00:00.000Z",
    band: "strong",
    trajectoryClass: "one-shot",
    cost: COST,
    ...over,
  };
}

function page(entries: Entry[], over: Partial<Page> = {}): Page {
  return {
    challengeId: "c",
    version: 3,
    total: entries.length,
    next: null,
    bands: { elite: 0, strong: entries.length, competent: 0, struggling: 0, weak: 0, failed: 0 },
    baselines: [],
    sort: "rank",
    maxCostUsd: null,
    prices: null,
    entries,
    ...over,
  };
}

const baseline = (afterRank: number, label = "Reference"): Page["baselines"][number] => ({
  agentId: `baseline-${afterRank}`,
  submissionId: `baseline-${afterRank}-1`,
  label,
  kind: "reference",
  score: 85,
  unrounded: "85.250",
  afterRank,
});

describe("renderings", () => {
  it("renders a leaderboard page and a live rank change", () => {
    const text = renderLeaderboard(
      page([
        entry(1, 91, {
          iterations: 2,
          timeToFinalMs: 125_000,
          cost: { status: "priced", usd: "0.0451" } as unknown as Entry["cost"],
        }),
        entry(2, 90),
      ]),
    );
    expect(text).toContain("#1");
    expect(text).toContain("2:05");
    expect(text).toContain("$0.0451");
    expect(text).toContain("not-measured");
    expect(
      renderBoardMessage(
        JSON.stringify({
          type: "rank-changed",
          version: 4,
          changes: [{ agentId: "a2", rank: 1, previousRank: 2, score: 95 }],
        }),
      ),
    ).toBe("v4  #1 (from #2)  95  a2");
  });

  it("shows the rank range and tie, the interval, band and trajectory of each entry", () => {
    const text = renderLeaderboard(
      page(
        [
          entry(1, 91, { rankRange: { best: 1, worst: 3 }, tied: true, band: "elite" }),
          entry(2, 90, { rankRange: { best: 1, worst: 3 }, tied: true }),
          entry(3, 89, {
            rankRange: { best: 1, worst: 3 },
            tied: true,
            interval: { low: 89, high: 89 },
            trajectoryClass: "improving",
          }),
        ],
        { prices: { revision: 2, asOf: "2026-11-01" } },
      ),
    );
    const rows = text.split("\n").filter((l) => /^\s+#\d/.test(l));
    expect(rows[0]).toMatch(/#1\s+1–3\s+tied\s+91\s+89\.0–93\.0\s+elite\s+1\s+0:01/);
    expect(rows[1]).toMatch(/#2\s+1–3\s+tied\s+90\s+88\.0–92\.0/);
    // A point interval (a score stored before intervals) has no span to show.
    expect(rows[2]).toMatch(/#3\s+1–3\s+tied\s+89\s+-\s+strong\s+.*improving\s+a3$/);
    expect(text).toContain("prices: table revision 2 as of 2026-11-01");
    expect(text).toContain("bands: elite 0, strong 3");
  });

  it("places each baseline after the entries scoring at least as much, once across pages", () => {
    const lines = (p: Page, firstPage: boolean) => renderLeaderboard(p, { firstPage }).split("\n");
    const isBaseline = (l: string) => l.includes("baseline (reference, not ranked): 85 (85.250)");
    const top = lines(
      page([entry(1, 91), entry(2, 90)], { baselines: [baseline(0, "Top")] }),
      true,
    );
    expect(top.findIndex(isBaseline)).toBe(top.findIndex((l) => l.includes("#1")) - 1);
    // The same baseline on a later page (afterRank 0 is before its first entry): not again.
    expect(lines(page([entry(3, 80)], { baselines: [baseline(0)] }), false).some(isBaseline)).toBe(
      false,
    );
    const between = lines(page([entry(1, 91), entry(2, 80)], { baselines: [baseline(1)] }), true);
    expect(between.findIndex(isBaseline)).toBe(between.findIndex((l) => l.includes("#2")) - 1);
    const last = lines(page([entry(1, 91)], { baselines: [baseline(5)] }), false);
    expect(last.at(-1)).toSatisfy(isBaseline);
    // Sorted by cost, ranks are out of order: the baselines follow the entries.
    const byCost = lines(
      page([entry(2, 90), entry(1, 91)], { sort: "cost", baselines: [baseline(1)] }),
      true,
    );
    expect(byCost.at(-1)).toSatisfy(isBaseline);
  });

  it("renders a problem with its detail, each offending field and its rule", () => {
    expect(
      renderProblem({
        type: "urn:bouts:problem:validation",
        title: "Invalid request",
        status: 400,
        detail: "eventTypes: Invalid option",
        errors: [{ path: "eventTypes.0", message: "Invalid option\x1b[2J" }],
        rule: "private",
      }),
    ).toBe(
      "400 Invalid request: eventTypes: Invalid option\n  eventTypes.0: Invalid option\n  rule: private",
    );
  });
});

describe("text from the API", () => {
  it("loses escape sequences and controls, and a line break becomes a space", () => {
    expect(cleanField("evil\x1b[2J\nname")).toBe("evil name");
    expect(cleanField("a\x1b]0;title\x07b")).toBe("ab");
    expect(cleanField("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b")).toBe("alinkb");
    expect(cleanField("a\x1bPdevice\x1b\\b\x1b7c\x9b31md")).toBe("abcd");
    expect(cleanField("tab\there\r\nand\x00nul\x7f")).toBe("tab here andnul");
    expect(cleanField("\u202eevil\u2066x")).toBe("evilx");
    expect(cleanField("plain ünïcode – ok")).toBe("plain ünïcode – ok");
  });

  it("keeps a rendering's own line breaks at the output", () => {
    expect(stripTerminalControls("row 1\x1b[2J\nrow 2\x07\tend")).toBe("row 1\nrow 2  end");
  });

  it("is cleaned in every rendering that shows a name", () => {
    const text = renderLeaderboard(
      page([entry(1, 91)], { baselines: [baseline(1, "Ref\x1b[2J\nsolution")] }),
    );
    expect(text).toContain("Ref solution");
    expect(text).not.toContain("\x1b");
    expect(renderBoardMessage("\x1b[2Jnot json")).toBe("not json");
  });
});
