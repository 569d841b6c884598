// Example submission "stub": a do-nothing merge that refuses every call with the interface's
// declared error. It must earn nothing (docs/design.md §33).

/**
 * Deep-merges plain objects into a new object; later sources win, arrays are replaced and
 * hostile keys (`__proto__`, `constructor`, `prototype`) never reach a prototype.
 * @param {...object} sources the objects to merge, left to right
 * @returns {object} a new object
 * @throws {TypeError} when a source is not a plain object
 */
export function deepMerge(...sources) {
  throw new TypeError(`deepMerge: expected plain objects, got ${sources.length} sources`);
}
