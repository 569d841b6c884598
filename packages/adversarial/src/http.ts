/**
 * @module adversarial/http
 * Candidates for a service-style interface (an HTTP server the submission's factory builds),
 * written as one node:test file. Oracles: bad input is a 4xx and never a 5xx, and the server
 * still serves a valid request afterwards; declared bounds hold; injection payloads are stored
 * and read back byte for byte and never widen a query to another user's data; protected routes
 * refuse forged credentials and other users; concurrent writes lose nothing and duplicate
 * nothing. Each test starts its own server on a loopback port inside the sandbox. Pure.
 */
import type { HttpInterface, ParamSpec, RouteSpec } from "@bouts/contracts";
import { slug, uniqueIds, type Candidate } from "./candidate.ts";
import { INJECTION_STRINGS, wrongTypeValues, describeValue } from "./values.ts";

/** One HTTP test: which helper of the generated file it calls, with what configuration. */
export interface HttpOp {
  helper:
    | "refuses"
    | "accepts"
    | "roundTrip"
    | "noLeak"
    | "unauthorized"
    | "otherUserRead"
    | "concurrentUnique"
    | "concurrentCreates";
  config: Record<string, unknown>;
}

export type HttpCandidate = Candidate<HttpOp>;

const SQL = INJECTION_STRINGS.filter((s) => s.sql);
const XSS = INJECTION_STRINGS.find((s) => s.text.startsWith("<script"))!;

function fieldCandidates(
  r: RouteSpec,
  f: ParamSpec,
  stores: boolean,
  isLogin: boolean,
): HttpCandidate[] {
  const out: HttpCandidate[] = [];
  const add = (c: Omit<HttpCandidate, "target" | "priority">) =>
    out.push({ ...c, target: r.id, priority: 0 });
  const where = `${r.method} ${r.path}`;
  for (const v of wrongTypeValues(f.type).slice(0, 2)) {
    add({
      id: `gen-wt-${r.id}-${slug(f.name)}-${slug(describeValue(v))}`,
      severity: "medium",
      technique: "wrong-type",
      key: `wrong-type:${r.id}:${f.name}`,
      title: `${where} answers 4xx when ${f.name} is ${describeValue(v)}`,
      defaultRationale: `declared interface: ${f.name} is ${f.type}`,
      op: {
        helper: "refuses",
        config: { route: r.id, set: { [f.name]: v.kind === "json" ? v.value : null } },
      },
    });
  }
  if (!f.optional)
    add({
      id: `gen-eb-${r.id}-${slug(f.name)}-missing`,
      severity: "medium",
      technique: "empty-boundary",
      key: `empty-boundary:${r.id}:${f.name}`,
      title: `${where} answers 4xx when ${f.name} is missing`,
      defaultRationale: `declared interface: ${f.name} is required`,
      op: { helper: "refuses", config: { route: r.id, omit: f.name } },
    });
  if (f.type === "string") {
    if ((f.minLength ?? 0) > 0)
      add({
        id: `gen-eb-${r.id}-${slug(f.name)}-empty`,
        severity: "low",
        technique: "empty-boundary",
        key: `empty-boundary:${r.id}:${f.name}`,
        title: `${where} answers 4xx when ${f.name} is empty`,
        defaultRationale: `declared interface: ${f.name} needs at least ${f.minLength} characters`,
        op: { helper: "refuses", config: { route: r.id, set: { [f.name]: "" } } },
      });
    if (f.maxLength !== undefined && f.maxLength <= 100_000) {
      add({
        id: `gen-eb-${r.id}-${slug(f.name)}-at-max`,
        severity: "low",
        technique: "empty-boundary",
        key: `empty-boundary:${r.id}:${f.name}`,
        title: `${where} accepts ${f.name} of exactly ${f.maxLength} characters`,
        defaultRationale: `declared interface: ${f.maxLength} characters is the longest valid ${f.name}`,
        op: {
          helper: "accepts",
          config: { route: r.id, repeat: { field: f.name, times: f.maxLength } },
        },
      });
      add({
        id: `gen-eb-${r.id}-${slug(f.name)}-over-max`,
        severity: "low",
        technique: "empty-boundary",
        key: `empty-boundary:${r.id}:${f.name}`,
        title: `${where} answers 4xx when ${f.name} has ${f.maxLength + 1} characters`,
        defaultRationale: `declared interface: ${f.name} is at most ${f.maxLength} characters`,
        op: {
          helper: "refuses",
          config: { route: r.id, repeat: { field: f.name, times: f.maxLength + 1 } },
        },
      });
    }
    add({
      id: `gen-big-${r.id}-${slug(f.name)}`,
      severity: "medium",
      technique: "oversized",
      key: `oversized:${r.id}:${f.name}`,
      title: `${where} survives a 1,000,000-character ${f.name}`,
      defaultRationale: "declared interface: unbounded text in a request body",
      op: {
        helper: f.maxLength !== undefined ? "refuses" : "accepts",
        config: {
          route: r.id,
          repeat: { field: f.name, times: 1_000_000 },
          orRefuses: f.maxLength === undefined,
        },
      },
    });
    if (stores && !r.unique) {
      for (const s of SQL.slice(0, 2))
        add({
          id: `gen-inj-${r.id}-${slug(f.name)}-${slug(s.label)}`,
          severity: "critical",
          technique: "injection",
          key: `injection:${r.id}:${f.name}`,
          title: `${where} stores ${s.label} in ${f.name} verbatim`,
          defaultRationale: `declared interface: ${f.name} is stored and read back`,
          op: { helper: "roundTrip", config: { route: r.id, field: f.name, value: s.text } },
        });
      add({
        id: `gen-inj-${r.id}-${slug(f.name)}-script`,
        severity: "high",
        technique: "injection",
        key: `injection:${r.id}:${f.name}`,
        title: `${where} returns a stored script tag in ${f.name} as JSON data, unchanged`,
        defaultRationale: `declared interface: ${f.name} is stored and served back`,
        op: { helper: "roundTrip", config: { route: r.id, field: f.name, value: XSS.text } },
      });
    } else if (isLogin) {
      add({
        id: `gen-inj-${r.id}-${slug(f.name)}-sql`,
        severity: "critical",
        technique: "injection",
        key: `injection:${r.id}:${f.name}`,
        title: `${where} does not log in with a SQL tautology in ${f.name}`,
        defaultRationale: `declared interface: ${f.name} is checked against stored credentials`,
        op: {
          helper: "refuses",
          config: { route: r.id, set: { [f.name]: SQL[0]!.text }, registered: true },
        },
      });
    } else {
      add({
        id: `gen-inj-${r.id}-${slug(f.name)}-sql`,
        severity: "medium",
        technique: "injection",
        key: `injection:${r.id}:${f.name}`,
        title: `${where} answers a SQL tautology in ${f.name} without a server error`,
        defaultRationale: `declared interface: ${f.name} reaches the data layer`,
        op: {
          helper: "accepts",
          config: { route: r.id, set: { [f.name]: SQL[0]!.text }, orRefuses: true },
        },
      });
    }
  }
  return out;
}

function routeCandidates(iface: HttpInterface, r: RouteSpec): HttpCandidate[] {
  if (r.path.includes(":")) return [];
  const where = `${r.method} ${r.path}`;
  const stores = r.readBack !== undefined || r.list !== undefined;
  const isLogin = iface.auth?.login.path === r.path && iface.auth.login.method === r.method;
  const out: HttpCandidate[] = (r.body ?? []).flatMap((f) =>
    fieldCandidates(r, f, stores, isLogin),
  );
  const add = (c: Omit<HttpCandidate, "target" | "priority">) =>
    out.push({ ...c, target: r.id, priority: 0 });
  if (r.body) {
    for (const [label, raw] of [
      ["truncated JSON", '{"a":'],
      ["a JSON array", "[]"],
    ] as const)
      add({
        id: `gen-mal-${r.id}-${slug(label)}`,
        severity: "medium",
        technique: "malformed",
        key: `malformed:${r.id}`,
        title: `${where} answers 4xx to ${label}`,
        defaultRationale: "a request body is untrusted bytes",
        op: { helper: "refuses", config: { route: r.id, raw } },
      });
  }
  for (const q of r.query.filter((p) => p.type === "string")) {
    const creator = iface.routes.find((c) => c.list === r.path);
    for (const s of SQL)
      add({
        id: `gen-inj-${r.id}-${slug(q.name)}-${slug(s.label)}`,
        severity: "critical",
        technique: "injection",
        key: `injection:${r.id}:${q.name}`,
        title: `${where} with ${s.label} in ?${q.name} shows no other user's data`,
        defaultRationale: `declared interface: ?${q.name} filters stored data`,
        op: creator
          ? {
              helper: "noLeak",
              config: { route: r.id, creator: creator.id, param: q.name, value: s.text },
            }
          : {
              helper: "accepts",
              config: { route: r.id, query: { [q.name]: s.text }, orRefuses: true },
            },
      });
  }
  if (r.auth) {
    for (const [label, header] of [
      ["no credentials", null],
      ["a forged bearer token", "Bearer 0123456789abcdef0123456789abcdef"],
      ["a SQL tautology as the token", "Bearer ' OR '1'='1"],
      ["an empty bearer token", "Bearer "],
    ] as const)
      add({
        id: `gen-auth-${r.id}-${slug(label)}`,
        severity: "critical",
        technique: "auth",
        key: `auth:${r.id}`,
        title: `${where} refuses ${label}`,
        defaultRationale: "declared interface: the route needs a valid token",
        op: { helper: "unauthorized", config: { route: r.id, header } },
      });
    if (r.readBack)
      add({
        id: `gen-auth-${r.id}-other-user`,
        severity: "critical",
        technique: "auth",
        key: `auth:${r.id}`,
        title: `${r.readBack.path} does not show one user's data to another`,
        defaultRationale: "declared interface: stored data belongs to its creator",
        op: { helper: "otherUserRead", config: { route: r.id } },
      });
  }
  if (r.unique)
    add({
      id: `gen-cc-${r.id}-unique`,
      severity: "high",
      technique: "concurrent",
      key: `concurrent:${r.id}`,
      title: `${where} accepts exactly one of 12 concurrent requests with the same ${r.unique.field}`,
      defaultRationale: `declared interface: ${r.unique.field} is unique`,
      op: { helper: "concurrentUnique", config: { route: r.id, field: r.unique.field } },
    });
  if (r.list)
    add({
      id: `gen-cc-${r.id}-creates`,
      severity: "medium",
      technique: "concurrent",
      key: `concurrent:${r.id}`,
      title: `${where} keeps all of 25 concurrent creations, each once`,
      defaultRationale: "declared interface: concurrent writes must not be lost",
      op: { helper: "concurrentCreates", config: { route: r.id } },
    });
  return out;
}

/** Every candidate test for an HTTP interface, with unique ids. */
export function buildHttpCandidates(iface: HttpInterface): HttpCandidate[] {
  return uniqueIds(iface.routes.flatMap((r) => routeCandidates(iface, r)));
}
