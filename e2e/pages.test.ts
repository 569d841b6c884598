/**
 * The public pages in a real browser (docs/pages.md "Browser tests"): Debian's Chromium driven
 * by playwright-core against a private `npm start` (its own ports and state, the deep-merge
 * example challenge), with submissions scored by the real runner. Asserts what a person sees —
 * text, roles, keyboard focus, the page without JavaScript, a row arriving live after a new
 * submission is scored — and that no hidden test content, no injected markup from an agent
 * name and no Content-Security-Policy violation shows up. A second challenge, deep-merge with a
 * baseline and a public/private split, is published by the test itself: its board with the
 * baseline, a version's operator page before and after promotion, and its private board after
 * close. Every page visited at 1280 px is checked for its layout: each table row as many cells
 * as its header, nothing wider than its box unless it scrolls by design, no tall narrow fact.
 * Last, on the same platform and browser, the interactive API docs (docs/design.md §37) in a
 * context where every request to a host other than loopback is aborted and recorded, as on a
 * machine with no network: Swagger UI renders the operations of /openapi.json, "Try it out"
 * reaches the API (an agent's route, then an operator's with its key), no request left
 * loopback, and no Content-Security-Policy violation or script error occurred. (They were a file
 * of their own, which started a second platform for four tests: ≈ 18 CPU-s.)
 * Screenshots go to test-artifacts/screenshots/ (git-ignored).
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packDirectory } from "../scripts/lib/local-platform.ts";
import { writeSecondVersion } from "@bouts/fixtures";
import { ROOT, startPlatform, type Platform } from "./platform.ts";

const CHROMIUM = process.env.BOUTS_CHROMIUM ?? "/usr/bin/chromium";
const IS_ROOT = process.getuid?.() === 0;
/** Chromium comes from `npm run setup`; only a machine that cannot install it skips. */
const SKIP = !existsSync(CHROMIUM) && !IS_ROOT;
const SKIP_REASON = `Chromium not found at ${CHROMIUM} and not root: run "sudo apt-get install -y chromium" (or npm run setup as root) for the browser tests`;

const SLUG = "deep-merge";
const SCREENSHOTS = path.join(ROOT, "test-artifacts/screenshots");
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const RUN = Date.now().toString(36);
/** An agent name that would run script if a page did not escape it. */
const HOSTILE_NAME = `<img src=x onerror="window.__xss=1">Mallory ${RUN}`;
const PLAIN_NAME = `Patient Pat ${RUN}`;
const LIVE_NAME = `Late Lou ${RUN}`;
const SCORE_TIMEOUT_MS = 150_000;
/** deep-merge with a baseline and a split, published by the test (see publishVariant). */
const VARIANT = "deep-merge-split";
const VARIANT_NAME = `Split Sam ${RUN}`;

type Submitted = { id: string; agentId: string; key: string; name: string };

let platform: Platform;
let browser: Browser;
let challengeId: string;
let scored: Promise<Submitted[]>;
let variant: Promise<{ id: string; submission: Submitted }>;
const cspViolations: string[] = [];

/** Strings of the challenge's hidden tests (ids, names, files) that a page must never show. */
function hiddenTestStrings(): string[] {
  const manifest = JSON.parse(
    readFileSync(path.join(ROOT, "challenges", SLUG, "challenge.json"), "utf8"),
  ) as Record<string, unknown>;
  const out = new Set<string>();
  for (const key of ["staticTests", "adversarialTests"]) {
    for (const t of (manifest[key] as Record<string, unknown>[] | undefined) ?? []) {
      for (const field of ["id", "name", "file"]) {
        const v = t[field];
        if (typeof v === "string" && v.length >= 6) out.add(v);
      }
    }
  }
  for (const f of readdirSync(path.join(ROOT, "challenges", SLUG, "tests"), { recursive: true })) {
    const base = path.basename(String(f));
    if (base.includes(".")) out.add(base);
  }
  return [...out];
}

async function api<T>(method: string, route: string, key: string | null, body?: FormData | object) {
  const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
  let payload: FormData | string | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${platform.api}${route}`, { method, headers, body: payload });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} → ${res.status}: ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** Registers an agent called `name`, enters it and submits an example submission. */
async function submitAs(
  name: string,
  kind: "complete" | "partial",
  trace: string | null = null,
  challenge = challengeId,
): Promise<Submitted> {
  const created = await api<{ agent: { id: string }; key: { key: string } }>(
    "POST",
    "/v1/agents",
    platform.credentials.operator.key,
    { name },
  );
  const key = created.key.key;
  await api("POST", `/v1/challenges/${challenge}/entries`, key, {});
  const form = new FormData();
  const archive = packDirectory(path.join(ROOT, "challenges", SLUG, "submissions", kind));
  form.set("archive", new Blob([archive]), "solution.tar.gz");
  // A telemetry trace: what the run spent, priced by the demo price table of npm start.
  if (trace)
    form.set(
      "trace",
      new Blob([readFileSync(path.join(ROOT, "packages/telemetry/fixtures", trace))]),
      "trace.jsonl",
    );
  const sub = await api<{ id: string }>(
    "POST",
    `/v1/challenges/${challenge}/submissions`,
    key,
    form,
  );
  return { id: sub.id, agentId: created.agent.id, key, name };
}

/** Waits until the submission is scored (its public breakdown exists); fails fast on `failed`. */
async function waitScored(s: Submitted): Promise<Submitted> {
  const deadline = Date.now() + SCORE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const view = await api<{ status: string; failureReason?: unknown }>(
      "GET",
      `/v1/submissions/${s.id}`,
      s.key,
    );
    if (view.status === "failed") {
      throw new Error(`submission of ${s.name} failed: ${JSON.stringify(view.failureReason)}`);
    }
    if (view.status === "scored") {
      const res = await fetch(`${platform.api}/v1/submissions/${s.id}/breakdown`);
      await res.body?.cancel();
      if (res.ok) return s;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`submission of ${s.name} was not scored within ${SCORE_TIMEOUT_MS} ms`);
}

/** Sends a gzipped bundle as the operator; answers the parsed JSON body. */
async function upload<T>(method: string, route: string, bundle: Uint8Array): Promise<T> {
  const res = await fetch(`${platform.api}${route}`, {
    method,
    headers: {
      Authorization: `Bearer ${platform.credentials.operator.key}`,
      "Content-Type": "application/gzip",
    },
    body: bundle,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} → ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/**
 * The variant's bundle: deep-merge (or its second version, one static test added) under the
 * variant's id, with the reference solution as a baseline and 30 % of the tests held out.
 */
function packVariant(second: boolean): Uint8Array {
  const dir = mkdtempSync(path.join(tmpdir(), "bouts-e2e-variant-"));
  const copy = path.join(dir, VARIANT);
  try {
    if (second) writeSecondVersion(path.join(ROOT, "challenges"), copy);
    else cpSync(path.join(ROOT, "challenges", SLUG), copy, { recursive: true });
    const manifestPath = path.join(copy, "challenge.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, unknown>;
    const baselines = [
      { id: "reference", label: "reference solution", kind: "reference", path: "reference" },
    ];
    const split = { seed: "e2e-pages", privatePercent: 30 };
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, id: VARIANT, baselines, split }));
    return packDirectory(copy, ["submissions", "README.md"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function poll<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== null) return value;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

/**
 * Creates and publishes the variant (its baseline is scored at publish) and has one agent
 * submit to it without a trace, so nothing on its board is priced; resolves once the agent's
 * submission and the baseline are both on the board.
 */
async function publishVariant(): Promise<{ id: string; submission: Submitted }> {
  const operator = platform.credentials.operator.key;
  const created = await api<{ id: string }>("POST", "/v1/challenges", operator, {
    slug: VARIANT,
    title: "deepMerge with a baseline and a private board",
    description: "The browser test's closing challenge.",
    maxIterations: 10,
    profile: "engineering",
  });
  await upload("PUT", `/v1/challenges/${created.id}/bundle`, packVariant(false));
  await api("POST", `/v1/challenges/${created.id}/publish`, operator);
  const submission = await waitScored(await submitAs(VARIANT_NAME, "partial", null, created.id));
  await poll("the variant's baseline on its board", SCORE_TIMEOUT_MS, async () => {
    const board = await api<{ entries: unknown[]; baselines: unknown[] }>(
      "GET",
      `/v1/challenges/${created.id}/leaderboard`,
      null,
    );
    return board.entries.length === 1 && board.baselines.length === 1 ? true : null;
  });
  return { id: created.id, submission };
}

async function newPage(
  options: {
    javaScriptEnabled?: boolean;
    phone?: boolean;
    /** HTTP Basic credentials the browser answers a 401 with (the operator pages). */
    httpCredentials?: { username: string; password: string };
  } = {},
) {
  const context: BrowserContext = await browser.newContext({
    ...(options.httpCredentials ? { httpCredentials: options.httpCredentials } : {}),
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    viewport: options.phone ? { width: 390, height: 844 } : { width: 1280, height: 900 },
    deviceScaleFactor: options.phone ? 2 : 1,
    isMobile: options.phone ?? false,
    hasTouch: options.phone ?? false,
  });
  const page = await context.newPage();
  page.on("console", (msg) => {
    if (/Content.Security.Policy/i.test(msg.text())) cspViolations.push(msg.text());
  });
  page.on("pageerror", (err) => cspViolations.push(`page error: ${err.message}`));
  return { context, page };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Evaluates a JavaScript expression in the page (a string: these tests have no DOM types). */
function inPage<T = unknown>(page: Page, expression: string): Promise<T> {
  return page.evaluate<T>(expression);
}

/** How far the document is wider than the viewport (sideways scrolling), in CSS pixels. */
const OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth";

/**
 * What is wrong with the layout of the page as drawn (an empty list when nothing is): a table
 * row whose cells (colspan counted) differ from its header row's, the page or any element wider
 * than its box (an explicit scroll container, overflow-x auto or scroll, may be; text clipped
 * for screen readers only is not drawn), a fact of a facts grid taller than it is wide.
 */
const LAYOUT_PROBLEMS = `(() => {
  const problems = [];
  const name = (el) =>
    el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + [...el.classList].map((c) => "." + c).join("");
  const width = (row) => [...row.cells].reduce((n, cell) => n + cell.colSpan, 0);
  for (const table of document.querySelectorAll("table")) {
    const header = table.tHead?.rows[0] ?? table.rows[0];
    if (!header) continue;
    for (const row of table.rows)
      if (width(row) !== width(header))
        problems.push(name(table) + ": row " + row.rowIndex + " has " + width(row) + " cells under "
          + width(header) + " headers: " + row.textContent.replace(/\\s+/g, " ").trim().slice(0, 60));
  }
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth)
    problems.push("the page scrolls sideways: " + root.scrollWidth + " > " + root.clientWidth);
  const clipped = (el) => {
    for (let e = el; e; e = e.parentElement) if (getComputedStyle(e).clipPath !== "none") return true;
    return false;
  };
  for (const el of document.body.querySelectorAll("*")) {
    if (el.scrollWidth <= el.clientWidth) continue;
    const overflowX = getComputedStyle(el).overflowX;
    if (overflowX === "auto" || overflowX === "scroll") continue;
    if (clipped(el)) continue;
    problems.push(name(el) + " is " + (el.scrollWidth - el.clientWidth) + " px wider than its box");
  }
  for (const fact of document.querySelectorAll("dl.facts > div")) {
    const box = fact.getBoundingClientRect();
    if (box.height > box.width)
      problems.push("the fact " + JSON.stringify(fact.querySelector("dt")?.textContent ?? "")
        + " is taller than wide: " + Math.round(box.width) + " × " + Math.round(box.height) + " px");
  }
  return problems;
})()`;

/** Expects the page, at the desktop width of newPage (1280 px), to have no layout problem. */
async function expectLaidOut(page: Page, where: string) {
  expect(await inPage<number>(page, "window.innerWidth")).toBe(1280);
  const problems = await inPage<string[]>(page, LAYOUT_PROBLEMS);
  expect(problems, `layout of ${where}`).toEqual([]);
}

/** Expects no table's scroll region to scroll: at 1280 px the boards fit the page's width. */
async function expectTablesFit(page: Page, where: string) {
  const scrolling = await inPage<string[]>(
    page,
    `[...document.querySelectorAll(".table-scroll")]
      .filter((el) => el.scrollWidth > el.clientWidth)
      .map((el) => el.getAttribute("aria-labelledby") + ": " + el.scrollWidth + " > " + el.clientWidth)`,
  );
  expect(scrolling, `tables of ${where} that scroll at 1280 px`).toEqual([]);
}

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const SUITE = "public pages in Chromium";
describe.skipIf(SKIP)(SKIP ? `${SUITE} (skipped: ${SKIP_REASON})` : SUITE, () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    platform = await startPlatform({
      seed: [SLUG],
      logFile: path.join(ROOT, "test-artifacts/e2e-platform.log"),
      timeoutMs: 240_000,
    });
    challengeId = platform.credentials.challenges.find((c) => c.slug === SLUG)!.id;
    // Scoring runs while the browser starts and the first pages are checked.
    scored = Promise.all([
      submitAs(HOSTILE_NAME, "complete", "efficient-honest.jsonl").then(waitScored),
      submitAs(PLAIN_NAME, "partial", "wasteful.jsonl").then(waitScored),
    ]);
    scored.catch(() => undefined); // awaited by the tests that need it
    variant = publishVariant();
    variant.catch(() => undefined);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // Root (CI) cannot use Chromium's user-namespace sandbox.
      args: IS_ROOT ? ["--no-sandbox"] : [],
    });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  }, 60_000);

  it("lists the published challenge on the index, styled by the static stylesheet", async () => {
    const { context, page } = await newPage();
    const res = await page.goto(`${platform.api}/`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await expect
      .poll(() => page.getByRole("heading", { level: 1 }).textContent())
      .toBe("Challenges");
    // The variant this test publishes (deep-merge-split) may be listed too.
    const link = page.getByRole("link", { name: /^deepMerge: a safe recursive/ });
    expect(await link.getAttribute("href")).toBe(`/challenges/${SLUG}`);
    // The stylesheet came from public/ through the assets binding.
    const font = await inPage<string>(page, "getComputedStyle(document.body).fontFamily");
    expect(font).toContain("system-ui");
    const css = await page.request.get(`${platform.api}/static/pages.css`);
    expect(css.headers()["content-type"]).toContain("text/css");
    await expectLaidOut(page, "the index");
    await shoot(page, "index");
    await context.close();
  });

  it("shows the leaderboard with every column, escaping an agent's name", async () => {
    const [hostile, plain] = await scored;
    const { context, page } = await newPage();
    await page.goto(`${platform.api}/challenges/${SLUG}`);
    const table = page.getByRole("table", { name: /Leaderboard of/ });
    await table.waitFor();
    const headers = await table.getByRole("columnheader").allTextContents();
    expect(headers).toEqual([
      "Rank",
      "Rank range",
      "Agent",
      "Score",
      "Band",
      "Iterations",
      "Time to final",
      "Cost",
      "Trajectory",
    ]);
    const api = (await (
      await fetch(`${platform.api}/v1/challenges/${SLUG}/leaderboard`)
    ).json()) as {
      entries: {
        agentId: string;
        rankRange: { best: number; worst: number };
        tied: boolean;
        interval: { low: number; high: number };
      }[];
    };
    const rows = table.locator("tbody tr");
    expect(await rows.count()).toBe(2);
    // The hostile name is shown as text and ran nothing.
    const hostileRow = page.locator(`tr[data-agent-id="${hostile!.agentId}"]`);
    expect(await hostileRow.getByRole("rowheader").textContent()).toBe(HOSTILE_NAME);
    expect(await inPage<number | undefined>(page, "window.__xss")).toBeUndefined();
    expect(await page.locator("main img").count()).toBe(0);
    // Score, band, iterations, time and a trajectory chart with its class, per row.
    for (const s of [hostile!, plain!]) {
      const row = page.locator(`tr[data-agent-id="${s.agentId}"]`);
      const cells = (await row.getByRole("cell").allTextContents()).map((t) =>
        t.replace(/\s+/g, " ").trim(),
      );
      expect(cells[0]).toMatch(/^[12]$/);
      // The rank range the API states, "tied" when it spans both ranks, and the interval.
      const entry = api.entries.find((e) => e.agentId === s.agentId)!;
      const { best, worst } = entry.rankRange;
      expect(entry.tied).toBe(best < worst);
      expect(cells[1]).toMatch(
        entry.tied
          ? new RegExp(
              `^${best}–${worst} ?tied: statistically tied, could rank ${best} to ${worst} ?\\d`,
            )
          : new RegExp(`^${best} ?\\d`),
      );
      expect(cells[1]).toMatch(/\d+(\.\d+)?–\d+(\.\d+)?$/);
      expect(entry.interval.low).toBeLessThanOrEqual(entry.interval.high);
      expect(cells[2]).toMatch(new RegExp(`^\\d{1,3}: score breakdown of ${escapeRegExp(s.name)}`));
      expect(cells[3]).toMatch(/^(Elite|Strong|Competent|Struggling|Weak|Failed)$/);
      expect(cells[4]).toBe("1");
      expect(cells[5]).toMatch(/^\d+:\d\d$/);
      // Both runs sent a trace on a priced model: a dollar amount, never "$0" for silence.
      expect(cells[6]).toMatch(/^\$\d/);
      expect(cells[7]).toContain("One-shot");
      await expect
        .poll(() => row.getByRole("img").getAttribute("aria-label"))
        .toMatch(/^One-shot trajectory\. Scores by iteration: iteration 1: \d+\.$/);
    }
    expect(await page.getByText("Showing ranks 1–2 of 2 agents.").count()).toBe(1);
    await expect
      .poll(() => page.locator("[data-live-status]").textContent(), { timeout: 15_000 })
      .toContain("Live");
    await expectLaidOut(page, "the challenge page");
    await expectTablesFit(page, "the challenge page");
    await shoot(page, "challenge-desktop");
    await context.close();
  });

  it("draws score against cost with the Pareto frontier, as the API states it", async () => {
    const [hostile, plain] = await scored;
    const plot = (await (
      await fetch(`${platform.api}/v1/challenges/${SLUG}/leaderboard/cost`)
    ).json()) as {
      points: { agentId: string; usd: string; unrounded: string; onFrontier: boolean }[];
      frontier: string[];
    };
    expect(plot.points.map((p) => p.agentId).sort()).toEqual(
      [hostile!.agentId, plain!.agentId].sort(),
    );
    const { context, page } = await newPage();
    await page.goto(`${platform.api}/challenges/${SLUG}`);
    const section = page.getByRole("region", { name: "Score against cost" });
    await section.waitFor();
    const chart = section.getByRole("img", { name: /^Score against cost of 2 entries\./ });
    await chart.waitFor();
    // The text alternative names the frontier the API computed, cheapest first.
    const nameOf = new Map([
      [hostile!.agentId, hostile!.name],
      [plain!.agentId, plain!.name],
    ]);
    const label = (await chart.getAttribute("aria-label")) ?? "";
    const spoken = label.replace(/^.*cheapest first: /, "").replace(/\.$/, "");
    expect(spoken.split("; ").map((part) => part.replace(/ \d+(\.\d+)?(…)? at \$.*$/, ""))).toEqual(
      plot.frontier.map((id) => nameOf.get(id)),
    );
    // One dot per priced entry, those on the frontier marked, inside the drawing.
    const dots = chart.locator("circle.cost-dot");
    expect(await dots.count()).toBe(2);
    expect(await chart.locator("circle.on-frontier").count()).toBe(plot.frontier.length);
    const box = (await chart.boundingBox())!;
    for (let i = 0; i < 2; i++) {
      const dot = (await dots.nth(i).boundingBox())!;
      expect(dot.x).toBeGreaterThanOrEqual(box.x);
      expect(dot.x + dot.width).toBeLessThanOrEqual(box.x + box.width + 1);
      expect(dot.y).toBeGreaterThanOrEqual(box.y);
    }
    // The better-scoring of two points is drawn higher.
    const [a, b] = plot.points;
    const ya = (await chart.locator("circle.cost-dot").nth(0).boundingBox())!.y;
    const yb = (await chart.locator("circle.cost-dot").nth(1).boundingBox())!.y;
    if (Number(a!.unrounded.replace("…", "")) > Number(b!.unrounded.replace("…", "")))
      expect(ya).toBeLessThan(yb);
    await expectLaidOut(page, "the challenge page with its cost plot");
    await shoot(page, "challenge-cost");
    await context.close();
  });

  it("fits a phone screen: no sideways scroll of the page itself", async () => {
    await scored;
    const { context, page } = await newPage({ phone: true });
    await page.goto(`${platform.api}/challenges/${SLUG}`);
    await page.getByRole("table").waitFor();
    const overflow = await inPage<number>(page, OVERFLOW);
    expect(overflow).toBeLessThanOrEqual(1);
    await shoot(page, "challenge-phone");
    const [hostile] = await scored;
    await page.goto(`${platform.api}/submissions/${hostile!.id}`);
    expect(await inPage<number>(page, OVERFLOW)).toBeLessThanOrEqual(1);
    await shoot(page, "submission-phone");
    await context.close();
  });

  it("is usable from the keyboard: skip link, then the rows' links, with a visible focus", async () => {
    const [hostile] = await scored;
    const { context, page } = await newPage();
    await page.goto(`${platform.api}/challenges/${SLUG}`);
    await page.keyboard.press("Tab");
    expect(await inPage<string>(page, "document.activeElement?.textContent")).toBe(
      "Skip to content",
    );
    const skipBox = await page.locator(".skip-link").boundingBox();
    expect(skipBox && skipBox.y >= 0).toBe(true);
    await page.keyboard.press("Enter");
    expect(await inPage<string>(page, "document.activeElement?.id")).toBe("main");
    // Tab on until the first row's score link has focus.
    let focused = "";
    for (let i = 0; i < 10 && !focused.startsWith("/submissions/"); i++) {
      await page.keyboard.press("Tab");
      focused = await inPage<string>(page, 'document.activeElement?.getAttribute("href") ?? ""');
    }
    expect(focused).toMatch(/^\/submissions\//);
    const outline = await inPage<string>(
      page,
      "getComputedStyle(document.activeElement).outlineStyle",
    );
    expect(outline).not.toBe("none");
    await shoot(page, "challenge-keyboard-focus");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/submissions\//);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toMatch(/^Score of /);
    expect([hostile!.id, (await scored)[1]!.id]).toContain(page.url().split("/").pop());
    await context.close();
  });

  it("draws the breakdown so the math can be followed, without hidden test content", async () => {
    const [hostile] = await scored;
    const breakdown = (await (
      await fetch(`${platform.api}/v1/submissions/${hostile!.id}/breakdown`)
    ).json()) as {
      final: { unrounded: string; rounded: number };
      breakdown: {
        components: { label: string; weight: number; contribution: { text: string } }[];
        interval: { low: { text: string }; high: { text: string }; seed: string };
      };
    };
    const { context, page } = await newPage();
    await page.goto(`${platform.api}/submissions/${hostile!.id}`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
      `Score of ${HOSTILE_NAME} on deepMerge: a safe recursive object merge library`,
    );
    for (const name of ["Components", "How each component was scored", "Adjustments"]) {
      expect(await page.getByRole("heading", { level: 2, name }).count()).toBe(1);
    }
    const table = page.getByRole("table", { name: /score × weight = contribution/ });
    for (const c of breakdown.breakdown.components) {
      const row = table.getByRole("row", { name: new RegExp(`^${c.label}`) });
      const text = (await row.textContent()) ?? "";
      expect(text).toContain(`× ${c.weight}%`);
      expect(text).toContain(`= ${c.contribution.text}`);
    }
    expect(await page.getByRole("img", { name: /^Weighted sum / }).count()).toBe(1);
    const judges = page.getByRole("table", { name: /each judge's rubric scores/ }).first();
    expect(await judges.getByRole("row").count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator("p.rule").first().textContent()).toMatch(
      /Median|Outlier|Ambiguity|Single judge/,
    );
    const steps = page.getByRole("table", { name: /From the weighted sum to the final score/ });
    expect(await steps.getByRole("row", { name: /Final, unrounded/ }).textContent()).toContain(
      breakdown.final.unrounded,
    );
    expect(
      await steps.getByRole("row", { name: /Final, rounded half-up/ }).textContent(),
    ).toContain(String(breakdown.final.rounded));
    const interval = await steps.getByRole("row", { name: /95 % interval/ }).textContent();
    expect(interval).toContain(breakdown.breakdown.interval.low.text);
    expect(interval).toContain(breakdown.breakdown.interval.high.text);
    expect(interval).toContain(`submission:${hostile!.id}`);
    expect(await page.locator("pre.math").textContent()).toContain("rounded half-up");
    const text = (await page.locator("body").textContent()) ?? "";
    for (const hidden of hiddenTestStrings()) expect(text).not.toContain(hidden);
    await expectLaidOut(page, "the breakdown page");
    await shoot(page, "submission-desktop");
    await context.close();
  });

  it("renders the static parts without JavaScript", async () => {
    const [hostile] = await scored;
    const { context, page } = await newPage({ javaScriptEnabled: false });
    await page.goto(`${platform.api}/challenges/${SLUG}`);
    expect(
      await page
        .getByRole("table", { name: /Leaderboard of/ })
        .locator("tbody tr")
        .count(),
    ).toBe(2);
    expect(await page.locator("[data-live-status]").isHidden()).toBe(true);
    expect(await page.getByRole("img", { name: /trajectory/ }).count()).toBe(2);
    await expectLaidOut(page, "the challenge page without JavaScript");
    await shoot(page, "challenge-no-js");
    await page.goto(`${platform.api}/submissions/${hostile!.id}`);
    expect(await page.getByRole("img", { name: /^Weighted sum / }).count()).toBe(1);
    expect(await page.getByRole("heading", { name: "Final score" }).count()).toBe(1);
    await expectLaidOut(page, "the breakdown page without JavaScript");
    await shoot(page, "submission-no-js");
    await context.close();
  });

  it("adds a newly scored agent to the open page live, without a reload", async () => {
    await scored;
    const { context, page } = await newPage();
    await page.goto(`${platform.api}/challenges/${SLUG}`);
    await expect
      .poll(() => page.locator("[data-live-status]").textContent(), { timeout: 15_000 })
      .toContain("Live");
    await inPage(page, "window.__sameDocument = true");
    const late = await submitAs(LIVE_NAME, "complete");
    await waitScored(late);
    const row = page.locator(`tr[data-agent-id="${late.agentId}"]`);
    await row.waitFor({ timeout: 30_000 });
    expect(await row.getByRole("rowheader").textContent()).toBe(LIVE_NAME);
    expect(await page.locator("tbody tr").count()).toBe(3);
    expect(await page.getByText("Showing ranks 1–3 of 3 agents.").count()).toBe(1);
    expect(await inPage<boolean>(page, "window.__sameDocument")).toBe(true);
    await expect
      .poll(() => page.locator("[data-live-announcer]").textContent(), { timeout: 10_000 })
      .toContain(LIVE_NAME);
    await expectLaidOut(page, "the challenge page after a live update");
    await shoot(page, "challenge-live-update");
    await context.close();
  }, 200_000);

  it("shows a baseline as an aligned reference line, and no cost plot while nothing is priced", async () => {
    const { submission } = await variant;
    const { context, page } = await newPage({ javaScriptEnabled: false });
    await page.goto(`${platform.api}/challenges/${VARIANT}`);
    const table = page.getByRole("table", { name: /Leaderboard of/ });
    await table.waitFor();
    await expectLaidOut(page, "the board with a baseline");
    await expectTablesFit(page, "the board with a baseline");
    const baseline = table.locator("tr.baseline");
    expect(await baseline.count()).toBe(1);
    expect(await baseline.getByRole("rowheader").textContent()).toMatch(/reference solution/);
    expect(await baseline.getByRole("link").getAttribute("href")).toMatch(/^\/submissions\//);
    expect(await table.locator(`tr[data-agent-id="${submission.agentId}"]`).count()).toBe(1);
    // The run sent no trace: its cost is "not measured", and no plot of nothing is drawn.
    expect(await table.getByText("not measured").count()).toBe(1);
    expect(await page.getByRole("heading", { name: "Score against cost" }).count()).toBe(0);
    await shoot(page, "challenge-baseline");
    await context.close();
  });

  it(
    "says on the operator's version page what the version is: pending, then promoted",
    async () => {
      const { id } = await variant;
      const operator = platform.credentials.operator.key;
      const uploaded = await upload<{ version: number }>(
        "POST",
        `/v1/challenges/${id}/versions?note=${encodeURIComponent("adds a test")}`,
        packVariant(true),
      );
      const route = `/v1/challenges/${id}/versions/${uploaded.version}`;
      await poll("the version rescored", 2 * SCORE_TIMEOUT_MS, async () => {
        const v = await api<{ state: string }>("GET", route, operator);
        if (v.state === "rescoring") return null;
        expect(v.state).toBe("ready");
        return v;
      });
      const { context, page } = await newPage({
        httpCredentials: { username: "operator", password: operator },
      });
      const versionPage = `${platform.api}/challenges/${id}/versions/${uploaded.version}`;
      expect((await page.goto(versionPage))?.status()).toBe(200);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toMatch(/\(ready\)$/);
      expect(await page.getByText(/promote or discard with/i).count()).toBe(1);
      await expectLaidOut(page, "a ready version's page");
      await shoot(page, "version-ready");

      await api("POST", `${route}/promote`, operator, { reason: "the browser test promotes it" });
      await page.reload();
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toMatch(/\(promoted\)$/);
      expect(await page.getByText("Promoted: this version is live").count()).toBe(1);
      const text = (await page.locator("main").textContent()) ?? "";
      expect(text).not.toMatch(/promote or discard/i);
      expect(text).not.toContain("/promote");
      await expectLaidOut(page, "a promoted version's page");
      await shoot(page, "version-promoted");
      await context.close();
    },
    2 * SCORE_TIMEOUT_MS + 60_000,
  );

  it("draws the private board after close, fitting the page, each score linked to its breakdown", async () => {
    const { id, submission } = await variant;
    await api("POST", `/v1/challenges/${id}/close`, platform.credentials.operator.key);
    const board = await api<{ entries: { agentId: string; submissionId: string }[] }>(
      "GET",
      `/v1/challenges/${id}/private-leaderboard`,
      null,
    );
    expect(board.entries.map((e) => e.agentId)).toEqual([submission.agentId]);
    const { context, page } = await newPage();
    await page.goto(`${platform.api}/challenges/${VARIANT}`);
    const section = page.getByRole("region", { name: "Private board", exact: true });
    await section.waitFor();
    await expectLaidOut(page, "the closed board with its private board");
    await expectTablesFit(page, "the closed board with its private board");
    const link = section
      .getByRole("row", { name: new RegExp(escapeRegExp(VARIANT_NAME)) })
      .getByRole("link");
    expect(await link.getAttribute("href")).toBe(`/submissions/${board.entries[0]!.submissionId}`);
    await shoot(page, "challenge-private-board");
    await link.click();
    await page.waitForURL(/\/submissions\//);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toMatch(
      new RegExp(`^Score of ${escapeRegExp(VARIANT_NAME)}`),
    );
    await expectLaidOut(page, "the breakdown page of a private-board score");
    await context.close();
  });

  it("saw no Content-Security-Policy violation and no script error on any page", () => {
    expect(cspViolations).toEqual([]);
  });

  // ─── The interactive API docs (/docs), on the same platform and browser ───
  describe("the interactive API docs in Chromium, offline", () => {
    let context: BrowserContext;
    let page: Page;
    /** Requests the page tried to send off loopback (each aborted). */
    const offLoopback: string[] = [];
    /** CSP violations (the page's own event and Chromium's console report) and script errors. */
    const violations: string[] = [];

    beforeAll(async () => {
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      // No network but loopback: anything else is aborted and recorded.
      await context.route("**/*", async (route) => {
        const url = route.request().url();
        if (LOOPBACK.has(new URL(url).hostname)) return route.continue();
        offLoopback.push(url);
        return route.abort("internetdisconnected");
      });
      // Before any page script: every violation the document reports (a string: these tests
      // have no DOM types).
      await context.addInitScript({
        content: `window.__cspViolations = [];
            document.addEventListener("securitypolicyviolation", (e) => {
              window.__cspViolations.push(e.effectiveDirective + " blocked " + (e.blockedURI || "inline"));
            });`,
      });
      page = await context.newPage();
      page.on("console", (msg) => {
        if (/Content.Security.Policy/i.test(msg.text())) violations.push(msg.text());
      });
      page.on("pageerror", (err) => violations.push(`page error: ${err.message}`));
    }, 60_000);

    afterAll(async () => {
      await context?.close();
    });

    it("renders the operations of /openapi.json from files of this origin alone", async () => {
      const res = await page.goto(`${platform.api}/docs`);
      expect(res?.status()).toBe(200);
      const shown = await page
        .locator('.opblock-summary-path[data-path="/v1/challenges"]')
        .first()
        .waitFor({ state: "visible", timeout: 30_000 })
        .then(() => true)
        .catch(() => false);
      // Off-loopback requests first: when nothing rendered, they say why.
      expect(offLoopback).toEqual([]);
      expect(shown, "Swagger UI rendered GET /v1/challenges").toBe(true);
      expect(res?.headers()["content-security-policy"]).toContain("default-src 'none'");
      // The whole document, not just one operation: every path has its block.
      const doc = (await (await fetch(`${platform.api}/openapi.json`)).json()) as {
        paths: Record<string, unknown>;
      };
      const paths = await page.evaluate<string[]>(
        `[...document.querySelectorAll(".opblock-summary [data-path]")].map((e) => e.dataset.path)`,
      );
      expect(new Set(paths)).toEqual(new Set(Object.keys(doc.paths)));
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, "docs.png") });
    });

    /** Opens GET `route`'s block, runs "Try it out", and waits for a 200; answers the block. */
    async function tryItOut(route: string) {
      const block = page
        .locator(".opblock-get", {
          has: page.locator(`.opblock-summary-path[data-path="${route}"]`),
        })
        .first();
      await block.locator(".opblock-summary").first().click();
      await block.getByRole("button", { name: "Try it out" }).click();
      await block.getByRole("button", { name: "Execute" }).click();
      const live = block.locator(".live-responses-table tbody tr.response").first();
      await expect
        .poll(() => live.locator(".response-col_status").textContent(), { timeout: 15_000 })
        .toMatch(/^\s*200/);
      return { block, live };
    }

    it("calls the API from Try it out, on this origin", async () => {
      const { live } = await tryItOut("/v1/challenges");
      expect(await live.locator(".response-col_description").textContent()).toContain(SLUG);
      expect(offLoopback).toEqual([]);
    });

    it("authorizes with an operator key and calls an operator route with it", async () => {
      await page.locator(".auth-wrapper .authorize").click();
      const dialog = page.locator(".dialog-ux");
      const scheme = dialog.locator("form", { hasText: "operatorKey" });
      await scheme.locator("input").fill(platform.credentials.operator.key);
      await scheme.getByRole("button", { name: "Apply credentials" }).click();
      await expect
        .poll(() => scheme.getByRole("button", { name: "Remove authorization" }).count())
        .toBe(1);
      await scheme.getByRole("button", { name: "Close" }).click();
      await dialog.waitFor({ state: "detached" });
      const { block } = await tryItOut("/v1/agents");
      // The curl line shows the key went in the Authorization header.
      expect(await block.locator(".curl-command").textContent()).toContain("Authorization: Bearer");
      expect(offLoopback).toEqual([]);
    });

    it("saw no request leave loopback, no CSP violation and no script error", async () => {
      const reported = await page.evaluate<string[]>("window.__cspViolations");
      expect(offLoopback).toEqual([]);
      expect(reported).toEqual([]);
      expect(violations).toEqual([]);
    });
  });
});
