/**
 * @module e2e/contract/closed-document
 * The OpenAPI document as the contract test reads it: every object schema a response can reach
 * is closed (`additionalProperties: false`), so an answer carrying a field the document does not
 * name fails Schemathesis' response-schema check. Invariants: request schemas are untouched (a
 * shared component gets a closed `<name>__response` copy); an object that already says what
 * extra keys may hold (a map) keeps its rule; the input is never mutated.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const REF = "#/components/schemas/";
const SUFFIX = "__response";

const isObject = (v: Json | undefined): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A copy of `doc` whose response schemas are closed. The parts of an `allOf` are left open
 * (closing each part would refuse the other parts' fields) and the combination is closed with
 * `unevaluatedProperties: false`.
 * @example closeResponseSchemas(doc).paths["/v1/x"].get.responses["200"] // refs → X__response
 */
export function closeResponseSchemas(doc: JsonObject): JsonObject {
  const out = structuredClone(doc);
  const schemas =
    isObject(out.components) && isObject(out.components.schemas) ? out.components.schemas : {};
  const pending: string[] = [];
  const close = (node: Json, inAllOf = false): Json => {
    if (Array.isArray(node)) return node.map((n) => close(n, inAllOf));
    if (!isObject(node)) return node;
    const copy: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      // A part of an allOf keeps its own (open) component: closing it alone would refuse the
      // other parts' fields. The combination is closed below, with unevaluatedProperties.
      if (key === "$ref" && inAllOf) copy.$ref = value;
      else if (key === "$ref" && typeof value === "string" && value.startsWith(REF)) {
        const name = value.slice(REF.length);
        if (!name.endsWith(SUFFIX) && !(`${name}${SUFFIX}` in schemas)) {
          schemas[`${name}${SUFFIX}`] = {}; // reserved now: a cycle stops here
          pending.push(name);
        }
        copy.$ref = name.endsWith(SUFFIX) ? value : `${value}${SUFFIX}`;
      } else copy[key] = close(value, key === "allOf");
    }
    const isPlainObject = copy.type === "object" || isObject(copy.properties);
    if (isPlainObject && !inAllOf && !("additionalProperties" in copy))
      copy.additionalProperties = false;
    // OpenAPI 3.1 is JSON Schema 2020-12: unevaluatedProperties sees every part's properties.
    if (Array.isArray(copy.allOf) && !inAllOf && !("unevaluatedProperties" in copy))
      copy.unevaluatedProperties = false;
    return copy;
  };
  for (const item of Object.values(isObject(out.paths) ? out.paths : {})) {
    if (!isObject(item)) continue;
    for (const op of Object.values(item)) {
      if (!isObject(op) || !isObject(op.responses)) continue;
      for (const response of Object.values(op.responses)) {
        if (!isObject(response) || !isObject(response.content)) continue;
        for (const media of Object.values(response.content))
          if (isObject(media) && media.schema !== undefined) media.schema = close(media.schema);
      }
    }
  }
  while (pending.length > 0) {
    const name = pending.pop()!;
    schemas[`${name}${SUFFIX}`] = close(schemas[name] ?? {});
  }
  return out;
}
