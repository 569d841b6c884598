/**
 * The committed types are exactly what openapi-typescript makes of the committed document
 * (the platform project checks that document against the live `/openapi.json`): editing
 * either by hand, or regenerating one without the other, fails here.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderDocument, renderSchemaModule } from "../src/generate.ts";

const dir = path.join(import.meta.dirname, "..");
const documentFile = path.join(dir, "openapi.json");
const schemaFile = path.join(dir, "src/schema.ts");

describe("packages/client drift", () => {
  const document = JSON.parse(readFileSync(documentFile, "utf8")) as object;

  it("src/schema.ts is the generated form of openapi.json (npm run client:generate)", async () => {
    const expected = await renderSchemaModule(document, schemaFile);
    expect(readFileSync(schemaFile, "utf8") === expected, "run npm run client:generate").toBe(true);
  });

  it("openapi.json is stored in its canonical formatting", async () => {
    expect(readFileSync(documentFile, "utf8")).toBe(await renderDocument(document, documentFile));
  });

  it("a document with one more route changes the types (the check can fail)", async () => {
    const changed = structuredClone(document) as { paths: Record<string, unknown> };
    changed.paths["/v1/extra"] = {
      get: { responses: { 200: { description: "x" } } },
    };
    const rendered = await renderSchemaModule(changed, schemaFile);
    expect(rendered).toContain('"/v1/extra"');
    expect(rendered).not.toBe(readFileSync(schemaFile, "utf8"));
  });
});
