/**
 * @module judges/analysis/handlers
 * The request handlers of one JS/TS file and which of them are stubs. A Node handler takes
 * `(req, res)`. A context handler (Hono-style) takes one context, `c`, `ctx` or `context`, and
 * is passed to a route registration (`.get|post|put|patch|delete|all|on|use|options|notFound|
 * route(…)` on an app, chained or not, inline or by name), or is exported and answers through
 * its context (its registration is elsewhere). Middleware, a context and a `next` it calls, is
 * no entry point. A handler stub answers from the route alone: it reads of the request only its
 * URL, path, method or headers and touches nothing outside itself but same-file helpers that do
 * the same. Reads masked code. Pure.
 */
import { matchBracket, splitTopLevel } from "../source-text.ts";
import type { FunctionFacts } from "./functions.ts";

/** The handlers and middleware of a file, and the names its apps are bound to. */
export interface HandlerMap {
  /** Request handlers: the entry points of a server. */
  handlers: Set<FunctionFacts>;
  /** Registered middleware that passes the request on (`next()`): no entry point of its own. */
  middleware: Set<FunctionFacts>;
  /** Receivers of the registrations that hold a context handler (`app` of `app.get(…)`). */
  apps: Set<string>;
}

/** What a handler's parameter is, which decides what reading it may do in a stub. */
type Role = "request" | "context";

/**
 * What a stub may do with each role: a Node request gives its URL, method and headers; a context
 * gives the request's path, URL, method and headers, and answers (`c.json(…)`, `c.text(…)`, …).
 */
const STUB_USES: Record<Role, RegExp> = {
  request: /\??\.(?:url|method|headers)(?![\w$])/y,
  context:
    /\??\.(?:req\??\.(?:path|url|method)(?![\w$])|req\??\.header\s*\(|(?:json|text|body|html|notFound|status|redirect|header|newResponse)\s*\()/y,
};

/**
 * Names a stub may use besides its own: keywords and pure built-ins (`new Response` answers).
 * Not `this`: a handler reading `this.store` reads state of its own.
 */
const STUB_NAMES = new Set(
  "const let var if else return typeof instanceof new await async of in true false null undefined void JSON String Number URL Response".split(
    " ",
  ),
);

const CONTEXT = /^(?:c|ctx|context)$/;
const RESPONDS = /\??\.(?:json|text|body|html|notFound|redirect|newResponse)\s*\(/y;
const CALL = /\s*\(/y;
const KEY_COLON = /\s*:(?!:)/y;
const ARGUMENT_END = /\s*[,)]/y;
const REGISTRATION =
  /(?:(?<![\w$])([A-Za-z_$][\w$]*)|\))\s*\.\s*(?:get|post|put|patch|delete|all|on|use|options|notFound|route)\s*\(/g;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Whether the sticky `re` matches `text` at `index` (no copy of the rest of the text). */
function matchesAt(re: RegExp, text: string, index: number): boolean {
  re.lastIndex = index;
  return re.test(text);
}

/** The text just before `index`, enough for a look behind at brackets and blanks. */
const before = (text: string, index: number) => text.slice(Math.max(0, index - 200), index);

/** Every standalone occurrence of `name` (not a member, not part of a longer name). */
const occurrences = (body: string, name: string) =>
  body.matchAll(new RegExp(`(?<![\\w$.])${name.replace(/\$/g, "\\$")}(?![\\w$])`, "g"));

/** Whether a JS function takes a request first and a response second: a Node request handler. */
export const isHandler = (fn: { params: string[] }): boolean =>
  /^(?:req|request)$/.test(fn.params[0] ?? "") &&
  /^(?:res|response|reply)$/.test(fn.params[1] ?? "");

/** A context first, and at most a `next` second. */
const takesContext = (fn: FunctionFacts): boolean =>
  CONTEXT.test(fn.params[0] ?? "") && fn.params.length <= 2;

/** Whether the second parameter (`next`) is ever called: middleware that passes the request on. */
const callsNext = (fn: FunctionFacts): boolean =>
  fn.params.length === 2 &&
  [...occurrences(fn.body, fn.params[1]!)].some((m) =>
    matchesAt(CALL, fn.body, m.index + m[0].length),
  );

/** Whether `fn` answers through its context (`c.json(…)` and the like). */
const answersThroughContext = (fn: FunctionFacts): boolean =>
  [...occurrences(fn.body, fn.params[0]!)].some((m) =>
    matchesAt(RESPONDS, fn.body, m.index + m[0].length),
  );

/** The route registrations of a file: each one's receiver, argument range and bare names. */
function findRegistrations(code: string) {
  return [...code.matchAll(REGISTRATION)].map((m) => {
    const open = m.index + m[0].length - 1;
    const close = matchBracket(code, open);
    const names = splitTopLevel(code.slice(open + 1, close))
      .map((a) => a.trim())
      .filter((a) => IDENTIFIER.test(a));
    return { receiver: m[1], from: open + 1, to: close, names };
  });
}

/** Whether `fn` lies in another function that starts after `from` (nested in an argument). */
const nestedAfter = (fn: FunctionFacts, facts: FunctionFacts[], from: number) =>
  facts.some((g) => g !== fn && g.start > from && g.start < fn.start && fn.end <= g.end);

/** The request handlers and middleware of one JS/TS file's functions. */
export function findHandlers(code: string, facts: FunctionFacts[]): HandlerMap {
  const found: HandlerMap = { handlers: new Set(), middleware: new Set(), apps: new Set() };
  const registrations = findRegistrations(code);
  for (const fn of facts) {
    if (isHandler(fn)) {
      found.handlers.add(fn);
      continue;
    }
    if (!takesContext(fn)) continue;
    // Inline: the outermost function of a registration's argument (a callback inside it is not).
    const holders = registrations.filter(
      (r) =>
        (fn.start > r.from && fn.start < r.to && !nestedAfter(fn, facts, r.from)) ||
        r.names.includes(fn.name),
    );
    if (holders.length === 0 && !(fn.exported && answersThroughContext(fn))) continue;
    if (callsNext(fn)) {
      found.middleware.add(fn);
      continue;
    }
    found.handlers.add(fn);
    for (const r of holders) if (r.receiver) found.apps.add(r.receiver);
  }
  return found;
}

/**
 * Whether the bare occurrence of a role parameter at `index` is a whole argument of a call to a
 * function of the same file (whose own use of it is then checked as a helper's).
 */
function passedToHelper(body: string, index: number, name: string, check: StubCheck) {
  if (!/[(,]\s*$/.test(before(body, index))) return false;
  if (!matchesAt(ARGUMENT_END, body, index + name.length)) return false;
  let depth = 0;
  for (let i = index - 1; i >= 0; i--) {
    const ch = body[i];
    if (ch === ")" || ch === "]" || ch === "}") depth += 1;
    else if (ch === "(" || ch === "[" || ch === "{") {
      if (depth > 0) {
        depth -= 1;
        continue;
      }
      const callee = /(?<![\w$.])([A-Za-z_$][\w$]*)\s*$/.exec(before(body, i))?.[1];
      return ch === "(" && callee !== undefined && check.byName.has(callee);
    }
  }
  return false;
}

/** The arguments of the call that follows `at` in `body`, or none when no call follows. */
function callArguments(body: string, at: number): string[] {
  if (!matchesAt(CALL, body, at)) return [];
  const start = CALL.lastIndex - 1;
  return splitTopLevel(body.slice(start + 1, matchBracket(body, start))).map((a) => a.trim());
}

/** The names `fn` declares itself: its parameters, its locals and its nested functions' ones. */
function ownNames(fn: FunctionFacts, nested: FunctionFacts[]): Set<string> {
  return new Set([
    ...fn.params,
    ...[...fn.body.matchAll(/\b(?:const|let|var|function)\s+([A-Za-z_$][\w$]*)/g)].map(
      (m) => m[1]!,
    ),
    ...nested.flatMap((g) => g.params),
  ]);
}

/** What a stub check reads, and how many helper checks it may still make. */
interface StubCheck {
  facts: FunctionFacts[];
  /** The file's functions by name: the helpers a handler may call. */
  byName: Map<string, FunctionFacts[]>;
  budget: number;
}

/** Helper checks one handler may make: helpers calling helpers cannot make it explode. */
const HELPER_BUDGET = 200;

/**
 * Whether `fn` answers from the route alone when its parameters play `roles`: each role
 * parameter is read only as `STUB_USES` allows (or handed whole to a helper), and every other
 * name is its own, a keyword or a pure built-in, or a same-file helper that does the same with
 * the roles it is handed (a helper already being checked is taken as doing so). Past the budget
 * the answer is no: a handler is called a stub only on evidence.
 */
function answersFromRouteAlone(
  fn: FunctionFacts,
  roles: Map<string, Role>,
  check: StubCheck,
  seen: Set<FunctionFacts>,
): boolean {
  if (--check.budget < 0) return false;
  const { facts } = check;
  const body = fn.body;
  const nested = facts.filter((g) => g.start > fn.start && g.end <= fn.end);
  // A nested function's parameter of the same name is another variable (`.map((c) => c.id)`).
  const shadowed = (name: string, at: number) =>
    nested.some((g) => g.params.includes(name) && g.head <= at && at < g.end);
  for (const [name, role] of roles)
    for (const m of occurrences(body, name))
      if (
        !shadowed(name, fn.start + m.index) &&
        !matchesAt(STUB_USES[role], body, m.index + name.length) &&
        !passedToHelper(body, m.index, name, check)
      )
        return false;
  const own = ownNames(fn, nested);
  for (const m of body.matchAll(/(?<![\w$.])[A-Za-z_$][\w$]*/g)) {
    const word = m[0];
    const key =
      /[{,]\s*$/.test(before(body, m.index)) && matchesAt(KEY_COLON, body, m.index + word.length);
    if (key || own.has(word) || STUB_NAMES.has(word)) continue;
    const named = check.byName.get(word);
    if (!named) return false;
    const helpers = named.filter((h) => !seen.has(h));
    const args = callArguments(body, m.index + word.length);
    for (const helper of helpers) {
      const handed = new Map<string, Role>();
      args.forEach((arg, i) => {
        const role = roles.get(arg);
        const param = helper.params[i];
        if (role && param) handed.set(param, role);
      });
      if (!answersFromRouteAlone(helper, handed, check, new Set([...seen, helper]))) return false;
    }
  }
  return true;
}

/**
 * A handler stub: a Node handler that reads nothing of the request but its URL, method or
 * headers, or a context handler that reads nothing of its context but the request's path, URL,
 * method or headers and answers with a responder (`c.json`, `c.text`, `c.body`, `c.html`,
 * `c.notFound`, `c.status`, `c.redirect`, `c.header`, `c.newResponse`, `new Response`); either
 * touching nothing outside itself (no store, database, validator or other helper) but helpers of
 * the same file that are stubs in the same sense. Its answer depends on the route alone.
 */
export function isHandlerStub(fn: FunctionFacts, facts: FunctionFacts[]): boolean {
  const role: Role = isHandler(fn) ? "request" : "context";
  const byName = new Map<string, FunctionFacts[]>();
  for (const f of facts) byName.set(f.name, [...(byName.get(f.name) ?? []), f]);
  const check = { facts, byName, budget: HELPER_BUDGET };
  return answersFromRouteAlone(fn, new Map([[fn.params[0]!, role]]), check, new Set([fn]));
}
