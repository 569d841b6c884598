// Loader guard of the subject process, installed by preload.mjs before any submission module
// loads. Invariants: only `node:` and `file:` modules load (the submission's files, which the
// scanner and the judges read, and Node's own); a specifier or resolved URL with any other
// scheme (data:, http:, https:, blob:, …, in any case or spelling the URL parser accepts) is
// refused with an error naming it, for `import`, `import()`, `require` and `export … from`
// alike; the submission cannot register hooks of its own in front of these (module.register
// and module.registerHooks throw once the guard is in). Everything this file uses is captured
// when it is evaluated, before submission code exists. The scanner reports the same specifiers
// as unscanned code (containers/runner/src/scan/url-specifiers.ts); this is the runtime half.
import module, { syncBuiltinESMExports } from "node:module";
import { URL } from "node:url";

const ALLOWED = new Set(["node:", "file:"]);
const { registerHooks } = module;
const URLConstructor = URL;
const ErrorConstructor = Error;
const { stringify } = JSON;
const { exec } = RegExp.prototype;
const { call } = Function.prototype;
const { charCodeAt, replace, slice, toLowerCase } = String.prototype;
const { has } = Set.prototype;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const TABS_NEWLINES = /[\t\n\r]/g;

/** `fn.call(self, ...args)` with the captured `call`, whatever the submission patches later. */
function invoke(fn, self, ...args) {
  return call.call(fn, self, ...args);
}

/** The scheme of a specifier as Node's URL parser reads it (lower case, with ":"), or null. */
function schemeOf(specifier) {
  if (typeof specifier !== "string") return null;
  try {
    return new URLConstructor(specifier).protocol;
  } catch {
    let start = 0;
    while (start < specifier.length && invoke(charCodeAt, specifier, start) <= 0x20) start += 1;
    const cleaned = invoke(replace, invoke(slice, specifier, start), TABS_NEWLINES, "");
    const m = invoke(exec, SCHEME, cleaned);
    return m ? `${invoke(toLowerCase, m[1])}:` : null;
  }
}

/** Throws the refusal, naming the specifier (bounded) and its scheme. */
function refuse(specifier, scheme) {
  const text = typeof specifier === "string" ? specifier : "(not a string)";
  const shown = text.length > 80 ? `${invoke(slice, text, 0, 79)}…` : text;
  const e = new ErrorConstructor(
    `bouts: refused to load ${stringify(shown)}: a module from a ${scheme} URL is code no ` +
      `scanner or judge has read (only node: and file: modules load)`,
  );
  e.code = "ERR_BOUTS_UNSCANNED_MODULE";
  throw e;
}

/** Refuses a specifier or URL whose scheme is set and not allowed. */
function guard(specifier) {
  const scheme = schemeOf(specifier);
  if (scheme !== null && !invoke(has, ALLOWED, scheme)) refuse(specifier, scheme);
}

/** The guard's error when the submission tries to add loader hooks. */
function noHooks() {
  throw new ErrorConstructor(
    "bouts: module.register and module.registerHooks are not available to submissions: a " +
      "loader hook runs code no scanner or judge has read",
  );
}

/**
 * Installs the guard in this process: synchronous module hooks (module.registerHooks) that
 * refuse non-node:/file: specifiers at resolution and at load, then blocks later registrations.
 */
export function installLoaderGuard() {
  if (typeof registerHooks !== "function") {
    throw new ErrorConstructor("bouts: module.registerHooks is missing; the loader guard needs it");
  }
  registerHooks({
    resolve(specifier, context, nextResolve) {
      guard(specifier);
      const result = nextResolve(specifier, context);
      guard(result?.url);
      return result;
    },
    load(url, context, nextLoad) {
      const scheme = schemeOf(url);
      if (scheme === null || !invoke(has, ALLOWED, scheme)) refuse(url, scheme ?? "schemeless");
      return nextLoad(url, context);
    },
  });
  module.register = noHooks;
  module.registerHooks = noHooks;
  // `import { register } from "node:module"` binds the ESM export, not the CommonJS property.
  syncBuiltinESMExports();
}
