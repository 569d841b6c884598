/**
 * The interactive API docs in a real browser (docs/design.md §37): Debian's Chromium driven by
 * playwright-core against a private `npm start`, with every request to a host other than
 * loopback aborted and recorded, as on a machine with no network. Asserts that Swagger UI
 * renders the operations of /openapi.json, that "Try it out" reaches the API, that no request
 * left loopback, and that no Content-Security-Policy violation or script error occurred. A
 * screenshot goes to test-artifacts/screenshots/docs.png (git-ignored).
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startPlatform, type Platform } from "./platform.ts";

const CHROMIUM = process.env.BOUTS_CHROMIUM ?? "/usr/bin/chromium";
const IS_ROOT = process.getuid?.() === 0;
/** Chromium comes from `npm run setup`; only a machine that cannot install it skips. */
const SKIP = !existsSync(CHROMIUM) && !IS_ROOT;
const SKIP_REASON = `Chromium not found at ${CHROMIUM} and not root: run "sudo apt-get install -y chromium" (or npm run setup as root) for the browser tests`;

const SLUG = "deep-merge";
const SCREENSHOTS = path.join(ROOT, "test-artifacts/screenshots");
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

let platform: Platform;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Requests the page tried to send off loopback (each aborted). */
const offLoopback: string[] = [];
/** CSP violations (the page's own event and Chromium's console report) and script errors. */
const violations: string[] = [];

const SUITE = "interactive API docs in Chromium, offline";
describe.skipIf(SKIP)(SKIP ? `${SUITE} (skipped: ${SKIP_REASON})` : SUITE, () => {
  beforeAll(async () => {
    platform = await startPlatform({
      seed: [SLUG],
      logFile: path.join(ROOT, "test-artifacts/e2e-docs-platform.log"),
      timeoutMs: 240_000,
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // Root (CI) cannot use Chromium's user-namespace sandbox.
      args: IS_ROOT ? ["--no-sandbox"] : [],
    });
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
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  }, 60_000);

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

  it("calls the API from Try it out, on this origin", async () => {
    const block = page
      .locator(".opblock-get", {
        has: page.locator('.opblock-summary-path[data-path="/v1/challenges"]'),
      })
      .first();
    await block.locator(".opblock-summary").first().click();
    await block.getByRole("button", { name: "Try it out" }).click();
    await block.getByRole("button", { name: "Execute" }).click();
    const live = block.locator(".live-responses-table tbody tr.response").first();
    await expect
      .poll(() => live.locator(".response-col_status").textContent(), { timeout: 15_000 })
      .toMatch(/^\s*200/);
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
    const block = page
      .locator(".opblock-get", {
        has: page.locator('.opblock-summary-path[data-path="/v1/agents"]'),
      })
      .first();
    await block.locator(".opblock-summary").first().click();
    await block.getByRole("button", { name: "Try it out" }).click();
    await block.getByRole("button", { name: "Execute" }).click();
    const live = block.locator(".live-responses-table tbody tr.response").first();
    await expect
      .poll(() => live.locator(".response-col_status").textContent(), { timeout: 15_000 })
      .toMatch(/^\s*200/);
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
