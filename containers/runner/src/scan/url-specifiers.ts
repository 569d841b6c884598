/**
 * @module runner/scan/url-specifiers
 * Module specifiers that are URLs with a scheme other than `node:` or `file:` (`data:`,
 * `http:`, `https:`, `blob:`, …) load code that is not in the submission's files, so no scanner
 * or judge reads it: `export { createApp } from "data:text/javascript;base64,…"` runs an app
 * the scan never saw. An ESLint rule over the real parser's tree (so escapes, template literals,
 * case and whitespace are read as the runtime reads them) reports every such specifier in an
 * import, export-from, `import()`, `require`, `require.resolve`, `import.meta.resolve`,
 * `createRequire(…)(…)`, `new Worker(…)` or `import x = require(…)`, also when it is a `const`
 * initialised with a literal. Its reports become unscanned code (critical), never findings.
 * Invariants: the scheme test is the WHATWG URL parser's, the one Node resolves specifiers with;
 * a specifier that cannot be evaluated statically is left to the dynamic-code rules.
 */
import type { Rule, Scope } from "eslint";

/** Schemes whose modules are the submission's files or Node's own: the only ones allowed. */
const ALLOWED_SCHEMES: ReadonlySet<string> = new Set(["node:", "file:"]);

/** A URL scheme at the start of a string, after the blanks and controls URL parsing drops. */
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/**
 * The scheme (lower case, with its colon) of a specifier Node would read as a URL, when it is
 * not `node:` or `file:`; null for relative, absolute and bare specifiers and allowed schemes.
 * Leading C0 controls and spaces are dropped and tabs and newlines removed before the test, as
 * the URL parser does.
 */
export function disallowedScheme(specifier: string): string | null {
  let scheme: string | null;
  try {
    scheme = new URL(specifier).protocol;
  } catch {
    let start = 0;
    while (start < specifier.length && specifier.charCodeAt(start) <= 0x20) start += 1;
    const cleaned = specifier.slice(start).replace(/[\t\n\r]/g, "");
    const m = SCHEME.exec(cleaned);
    scheme = m ? `${m[1]!.toLowerCase()}:` : null;
  }
  if (scheme === null || ALLOWED_SCHEMES.has(scheme)) return null;
  return scheme;
}

/** The ESLint rule id, as eslint.ts registers it. */
export const URL_SPECIFIER_RULE = "bouts/url-module-specifier";

type Node = Rule.Node;

/** Names of calls whose first argument is a module specifier. */
const LOADING_CALLS: ReadonlySet<string> = new Set(["require", "resolve", "fork"]);

/** The string a node evaluates to without running anything, or null. */
function staticString(node: unknown, scope: Scope.Scope | null, depth = 0): string | null {
  if (depth > 8 || typeof node !== "object" || node === null) return null;
  const n = node as { type?: unknown } & Record<string, unknown>;
  switch (n.type) {
    case "Literal":
      return typeof n.value === "string" ? n.value : null;
    case "TemplateLiteral": {
      const quasis = n.quasis as { value: { cooked: string | null } }[];
      const exprs = n.expressions as unknown[];
      let out = quasis[0]?.value.cooked ?? null;
      for (let i = 0; out !== null && i < exprs.length; i += 1) {
        const part = staticString(exprs[i], scope, depth + 1);
        const next = quasis[i + 1]?.value.cooked ?? null;
        out = part === null || next === null ? null : out + part + next;
      }
      return out;
    }
    case "BinaryExpression": {
      if (n.operator !== "+") return null;
      const l = staticString(n.left, scope, depth + 1);
      const r = l === null ? null : staticString(n.right, scope, depth + 1);
      return l === null || r === null ? null : l + r;
    }
    case "TSAsExpression":
    case "TSNonNullExpression":
    case "TSSatisfiesExpression":
    case "TypeCastExpression":
      return staticString(n.expression, scope, depth + 1);
    case "NewExpression": {
      // new URL("data:…") names the URL whatever base follows.
      const callee = n.callee as { type?: string; name?: string };
      const args = n.arguments as unknown[];
      if (callee.type === "Identifier" && callee.name === "URL")
        return staticString(args[0], scope, depth + 1);
      return null;
    }
    case "Identifier":
      return constValue(n.name as string, scope, depth);
    default:
      return null;
  }
}

/** The value of a `const` bound to a static string in an enclosing scope, or null. */
function constValue(name: string, scope: Scope.Scope | null, depth: number): string | null {
  for (let s = scope; s; s = s.upper) {
    const variable = s.set.get(name);
    if (!variable) continue;
    if (variable.defs.length !== 1) return null;
    const def = variable.defs[0]!;
    const decl = def.parent as { kind?: string } | null;
    if (def.type !== "Variable" || decl?.kind !== "const") return null;
    const init = (def.node as { init?: unknown }).init;
    return staticString(init, s, depth + 1);
  }
  return null;
}

/** The name a callee is called by: `require`, `x.require`, `import.meta.resolve` → resolve. */
function calleeName(callee: unknown): string | null {
  const c = callee as { type?: string; name?: string; property?: { type?: string; name?: string } };
  if (c.type === "Identifier") return c.name ?? null;
  if (c.type === "MemberExpression" && c.property?.type === "Identifier")
    return c.property.name ?? null;
  return null;
}

/** A short, bounded quote of a specifier for the report. */
function quote(spec: string): string {
  const shown = spec.length > 60 ? `${spec.slice(0, 59)}…` : spec;
  return JSON.stringify(shown);
}

/**
 * The ESLint rule: reports each module specifier whose URL scheme is not `node:`/`file:`, with
 * the message `<how> <specifier> (a <scheme> URL: its code is not in the submission's files)`.
 */
export const urlSpecifierRule: Rule.RuleModule = {
  meta: {
    type: "problem",
    schema: [],
    docs: { description: "module specifiers with a URL scheme other than node: or file:" },
  },
  create(context) {
    const check = (node: Node, spec: unknown, how: string) => {
      const scope = context.sourceCode.getScope(node);
      const value = staticString(spec, scope);
      if (value === null) return;
      const scheme = disallowedScheme(value);
      if (scheme === null) return;
      context.report({
        node,
        message: `${how} ${quote(value)} (a ${scheme} URL: its code is not in the submission's files)`,
      });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source, "import from"),
      ExportAllDeclaration: (node) => check(node, node.source, "export from"),
      ExportNamedDeclaration: (node) => {
        if (node.source) check(node, node.source, "export from");
      },
      ImportExpression: (node) => check(node, node.source, "import()"),
      CallExpression: (node) => {
        const name = calleeName(node.callee);
        const arg = node.arguments[0];
        if (!arg) return;
        if (name !== null && LOADING_CALLS.has(name)) check(node, arg, `${name}()`);
        // createRequire(…)(spec)
        else if (node.callee.type === "CallExpression") check(node, arg, "require()");
      },
      NewExpression: (node) => {
        const name = calleeName(node.callee);
        const arg = node.arguments[0];
        if (name === "Worker" && arg) check(node, arg, "new Worker()");
      },
      // TypeScript: import x = require("…")
      ["TSExternalModuleReference" as string]: (node: Node) => {
        check(node, (node as unknown as { expression: unknown }).expression, "import = require()");
      },
    };
  },
};
