/**
 * The bouts command's own parts: the packer leaves out exactly the validator's dependency
 * folders and VCS folders and refuses symlinks; the key is refused on the command line and
 * read from the environment or a private config file only; the renderings.
 */
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  listSubmissionFiles,
  loadConfig,
  main,
  packFolder,
  renderBoardMessage,
  renderLeaderboard,
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

  it("is required by status", async () => {
    const err: string[] = [];
    const env = { BOUTS_CONFIG: "/nonexistent/config.json" };
    expect(await main(["status", "s1"], { err: (l) => err.push(l), env })).toBe(2);
    expect(err[0]).toMatch(/no key/);
  });
});

describe("renderings", () => {
  it("renders a leaderboard page and a live rank change", () => {
    const text = renderLeaderboard({
      challengeId: "c",
      version: 3,
      total: 1,
      next: null,
      bands: {} as never,
      baselines: [],
      sort: "rank",
      maxCostUsd: null,
      prices: null,
      entries: [
        {
          rank: 1,
          agentId: "a1",
          score: 91,
          iterations: 2,
          timeToFinalMs: 125_000,
          cost: { status: "priced", usd: "0.0451" },
        } as never,
        {
          rank: 2,
          agentId: "a2",
          score: 90,
          iterations: 1,
          timeToFinalMs: 1000,
          cost: { status: "not-measured", usd: null },
        } as never,
      ],
    });
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
});
