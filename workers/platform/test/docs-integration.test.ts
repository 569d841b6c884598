/**
 * The interactive API docs (docs/design.md §37), black-box through the platform Worker's fetch:
 * `/docs` names only same-origin URLs, runs no inline script or style, and its
 * Content-Security-Policy allows no other origin; every file it names answers 200 with its
 * content type from this Worker; Swagger UI comes from the exactly pinned swagger-ui-dist.
 */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import platformPackage from "../package.json";
import { DOCS_CSP, SWAGGER_UI_VERSION } from "../src/routes/docs.ts";

const ORIGIN = "http://platform.test";

function get(url: string) {
  return exports.default.fetch(new Request(new URL(url, ORIGIN)));
}

type Element = { tag: string; attributes: Map<string, string>; text: string };

/** Every element of an HTML answer, with its attributes and its own text. */
async function readElements(res: Response): Promise<Element[]> {
  const elements: Element[] = [];
  await new HTMLRewriter()
    .on("*", {
      element(e) {
        const attributes = new Map<string, string>();
        for (const [name = "", value = ""] of e.attributes) attributes.set(name, value);
        elements.push({ tag: e.tagName, attributes, text: "" });
      },
      text(t) {
        const el = elements.at(-1);
        if (el) el.text += t.text;
      },
    })
    .transform(res)
    .text();
  return elements;
}

/** The policy as directive → sources. */
function parseCsp(header: string): Map<string, string[]> {
  return new Map(
    header
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

let page: Response;
let elements: Element[];
beforeAll(async () => {
  page = await get("/docs");
  elements = await readElements(page.clone());
});

describe("/docs", () => {
  it("answers HTML with a policy that allows no other origin and no inline code", () => {
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(page.headers.get("X-Content-Type-Options")).toBe("nosniff");
    const header = page.headers.get("Content-Security-Policy");
    expect(header).toBe(DOCS_CSP);
    const csp = parseCsp(header!);
    expect(csp.get("default-src")).toEqual(["'none'"]);
    for (const directive of ["script-src", "style-src", "connect-src"])
      expect(csp.get(directive), directive).toEqual(["'self'"]);
    // Swagger UI's stylesheet draws its icons as data: URLs; nothing is fetched for them.
    expect(csp.get("img-src")).toEqual(["'self'", "data:"]);
    expect(csp.get("base-uri")).toEqual(["'none'"]);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    for (const [directive, sources] of csp) {
      for (const source of sources) {
        // Only keywords and data:, never a host, a scheme that fetches, a wildcard or unsafe-*.
        expect(source, `${directive} ${source}`).toMatch(/^('self'|'none'|data:)$/);
      }
    }
  });

  it("names only same-origin URLs, loads Swagger UI from its pinned version, and inlines nothing", () => {
    const urls = elements.flatMap((e) =>
      ["src", "href", "action", "srcset", "poster", "data"].flatMap((a) => {
        const v = e.attributes.get(a);
        return v === undefined ? [] : [{ tag: e.tag, url: v }];
      }),
    );
    expect(urls.length).toBeGreaterThan(0);
    for (const { tag, url } of urls) {
      expect(new URL(url, `${ORIGIN}/docs`).origin, `${tag} ${url}`).toBe(ORIGIN);
      expect(url, `${tag} ${url}`).toMatch(/^\/[^/]/);
    }
    const scripts = elements.filter((e) => e.tag === "script");
    expect(scripts.map((s) => s.attributes.get("src"))).toEqual([
      `/docs/swagger-ui/${SWAGGER_UI_VERSION}/swagger-ui-bundle.js`,
      "/docs/start.js",
    ]);
    for (const s of scripts) expect(s.text.trim(), "inline script").toBe("");
    expect(elements.filter((e) => e.tag === "style")).toEqual([]);
    for (const e of elements) {
      expect(e.attributes.has("style"), `${e.tag} style attribute`).toBe(false);
      for (const name of e.attributes.keys()) expect(name, `${e.tag} handler`).not.toMatch(/^on/);
    }
    const sheets = elements.filter(
      (e) => e.tag === "link" && e.attributes.get("rel") === "stylesheet",
    );
    expect(sheets.map((s) => s.attributes.get("href"))).toEqual([
      `/docs/swagger-ui/${SWAGGER_UI_VERSION}/swagger-ui.css`,
    ]);
  });

  it("serves every script and stylesheet it names, with its content type", async () => {
    const assets = elements.flatMap((e) => {
      if (e.tag === "script") return [{ url: e.attributes.get("src")!, type: "text/javascript" }];
      if (e.tag === "link" && e.attributes.get("rel") === "stylesheet")
        return [{ url: e.attributes.get("href")!, type: "text/css" }];
      return [];
    });
    expect(assets).toHaveLength(3);
    for (const { url, type } of assets) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get("Content-Type"), url).toMatch(new RegExp(`^${type}(;|$)`));
      expect(res.headers.get("X-Content-Type-Options"), url).toBe("nosniff");
      const body = await res.text();
      expect(body.length, url).toBeGreaterThan(0);
      if (url.includes(`/${SWAGGER_UI_VERSION}/`))
        expect(res.headers.get("Cache-Control"), url).toContain("immutable");
    }
  });

  it("serves the package's files as they are, with the bundle's license notice beside it", async () => {
    const base = `/docs/swagger-ui/${SWAGGER_UI_VERSION}`;
    // The browser bundle verbatim (a UMD defining SwaggerUIBundle), never a module rebuilt
    // around it; its first line points at the license notice, which is served beside it.
    const bundle = await (await get(`${base}/swagger-ui-bundle.js`)).text();
    expect(bundle.slice(0, 120)).toMatch(
      /^\/\*! For license information please see swagger-ui-bundle\.js\.LICENSE\.txt \*\/\n!function webpackUniversalModuleDefinition\(/,
    );
    expect(bundle.length).toBeGreaterThan(1_000_000);
    const css = await (await get(`${base}/swagger-ui.css`)).text();
    expect(css.slice(0, 12)).toBe(".swagger-ui{");
    const license = await get(`${base}/swagger-ui-bundle.js.LICENSE.txt`);
    expect(license.status).toBe(200);
    expect(license.headers.get("Content-Type")).toMatch(/^text\/plain/);
    expect((await license.text()).length).toBeGreaterThan(100);
  });

  it("starts Swagger UI on this Worker's document, with the online validator off", async () => {
    const start = await (await get("/docs/start.js")).text();
    expect(start).toContain('url: "/openapi.json"');
    expect(start).toContain("validatorUrl: null");
    // No absolute URL anywhere in the start script.
    expect(start).not.toMatch(/\/\/[a-z0-9.-]+/i);
    const doc = await get("/openapi.json");
    expect(doc.status).toBe(200);
    await doc.body?.cancel();
  });

  it("answers 404 for a version of Swagger UI it does not bundle", async () => {
    const res = await get("/docs/swagger-ui/0.0.1/swagger-ui-bundle.js");
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });
});

describe("swagger-ui-dist", () => {
  it("is pinned to one exact version, the one the page serves", () => {
    const pinned = (platformPackage.dependencies as Record<string, string>)["swagger-ui-dist"];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(SWAGGER_UI_VERSION).toBe(pinned);
  });
});
