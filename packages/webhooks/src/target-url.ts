/**
 * @module webhooks/target-url
 * Validates the URL an agent registers as a webhook target (SSRF defence by syntax; the rules:
 * docs/webhooks.md, "Target URL rules"). Pure. Invariants: parsing is WHATWG `URL`, as in `fetch`,
 * and the value returned is its `href`: store and fetch exactly that string; only `https:` on 443
 * to a public DNS name or canonical public IP literal passes, without credentials (a name is text
 * only: "DNS rebinding"); `allowLoopback` admits loopback hosts, never private or link-local ones.
 */
import {
  classifyIpv4,
  classifyIpv6,
  parseIpv4,
  parseIpv6,
  type AddressClass,
} from "./ip-address.ts";
import { err, ok, type Err, type Result } from "@bouts/result";

/** Longest target URL accepted. */
export const MAX_TARGET_URL_LENGTH = 2048;

/** Options of {@link validateTargetUrl}. */
export interface TargetUrlOptions {
  /** Local development only: also allow http(s)://127.0.0.1|[::1]|localhost, nothing else. */
  allowLoopback?: boolean;
  /**
   * With `allowLoopback`: the only loopback ports admitted (inclusive range), minus `blocked`
   * (the platform's own services); without it, any port. A URL without a port means 80 or 443.
   */
  loopbackPorts?: LoopbackPortRule;
  /**
   * Our own domains (e.g. ["bouts.dev"]): a host equal to one or under it is refused, so a
   * webhook can never make the platform call itself.
   */
  blockedHosts?: readonly string[];
}

/** The loopback ports a local receiver may listen on. */
export interface LoopbackPortRule {
  min: number;
  max: number;
  blocked?: readonly number[];
}

/** A target URL that passed validation. */
export interface ValidTargetUrl {
  /** The normalized URL to store and to fetch. */
  url: string;
  /** True when admitted only through `allowLoopback`. */
  loopback: boolean;
}

/** The rule a rejected URL broke. Address classes come from {@link AddressClass}. */
export type TargetUrlRule =
  | "too-long"
  | "forbidden-character"
  | "invalid-url"
  | "scheme"
  | "port"
  | "credentials"
  | "numeric-host-form"
  | "trailing-dot"
  | "invalid-hostname"
  | "single-label-host"
  | "special-use-name"
  | "blocked-host"
  | "loopback-port"
  | Exclude<AddressClass, "public">;

/** Why a target URL was refused: the rule, and a sentence to show the agent. */
export interface TargetUrlError {
  reason: TargetUrlRule;
  message: string;
}

/**
 * Top-level labels that are never public: RFC 6761/6762/7686/8375 special-use names, ICANN's
 * .internal, and the common private-network suffixes (`localhost` is loopback, ruled apart).
 */
export const SPECIAL_USE_TLDS: readonly string[] = [
  "local",
  "localdomain",
  "internal",
  "intranet",
  "lan",
  "home",
  "corp",
  "private",
  "test",
  "example",
  "invalid",
  "onion",
  "arpa",
  "alt",
];
const SPECIAL_USE = new Set(SPECIAL_USE_TLDS);

/** Host names that resolve to a cloud platform's metadata service. */
export const METADATA_HOSTS: readonly string[] = [
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
];
const METADATA_NAMES = new Set(METADATA_HOSTS);

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Validates a webhook target URL. On success returns the normalized URL to store and fetch;
 * on failure names the rule broken.
 * @example
 * validateTargetUrl("https://hooks.example.org/bouts")        // ok
 * validateTargetUrl("https://0x7f.1/")                         // numeric-host-form
 * validateTargetUrl("http://127.0.0.1:8787/", { allowLoopback: true }) // ok, loopback
 */
export function validateTargetUrl(
  input: string,
  options: TargetUrlOptions = {},
): Result<ValidTargetUrl, TargetUrlError> {
  if (input.length > MAX_TARGET_URL_LENGTH)
    return refuse("too-long", `longer than ${MAX_TARGET_URL_LENGTH} characters`);
  // WHATWG parsing silently drops tabs/newlines and reads "\" as "/": refuse them rather
  // than validate a string that differs from what was typed.
  if ([...input].some((c) => c <= " " || c === "\u007f" || c === "\\"))
    return refuse("forbidden-character", "contains whitespace, a control character or a backslash");
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return refuse("invalid-url", "not an absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return refuse("scheme", `scheme ${url.protocol} is not allowed; use https:`);
  const authority = /^https?:\/\/([^/?#]*)/i.exec(input)?.[1];
  if (!authority) return refuse("invalid-url", "expected scheme://host");
  if (authority.includes("@") || url.username !== "" || url.password !== "")
    return refuse("credentials", "credentials in the URL are not allowed; use the signature");
  const rawHost = authority.startsWith("[")
    ? authority.slice(0, authority.indexOf("]") + 1)
    : authority.replace(/:[^:]*$/, "");
  const host = url.hostname;

  const cls = classifyHost(host, rawHost);
  if (!cls.ok) return cls;
  const own = options.blockedHosts?.find((b) => host === b || host.endsWith(`.${b}`));
  if (own !== undefined)
    return refuse(
      "blocked-host",
      `${host} belongs to the platform (${own}) and cannot be a target`,
    );
  if (options.allowLoopback && LOOPBACK_HOSTS.has(host)) {
    const refused = checkLoopbackPort(url, options.loopbackPorts);
    return refused ?? ok({ url: url.href, loopback: true });
  }
  if (cls.value !== "public") return refuse(cls.value, addressMessage(cls.value));
  if (url.protocol !== "https:") return refuse("scheme", "only https: targets are allowed");
  if (url.port !== "") return refuse("port", `port ${url.port} is not allowed; use 443`);
  return ok({ url: url.href, loopback: false });
}

// A loopback port is where the platform's own services listen (its API, the runner's control
// API): a webhook there would make the platform call itself and log the answer for the agent.
function checkLoopbackPort(
  url: URL,
  rule: LoopbackPortRule | undefined,
): Err<TargetUrlError> | null {
  if (!rule) return null;
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  if (rule.blocked?.includes(port))
    return refuse("loopback-port", `port ${port} belongs to the platform and cannot be a target`);
  if (port < rule.min || port > rule.max)
    return refuse(
      "loopback-port",
      `local receivers must listen on a port from ${rule.min} to ${rule.max}, not ${port}`,
    );
  return null;
}

function classifyHost(host: string, rawHost: string): Result<AddressClass, TargetUrlError> {
  if (host.startsWith("[")) {
    const groups = parseIpv6(host.slice(1, -1));
    if (!groups) return refuse("invalid-hostname", "not a valid IPv6 literal");
    return ok(classifyIpv6(groups));
  }
  const v4 = parseIpv4(host);
  if (v4 !== null) {
    // WHATWG turns "2130706433", "0177.0.0.1", "0x7f.1", "127.1" and "127。0。0。1" into
    // "127.0.0.1". Other parsers (proxies, logs, the agent's own tools) disagree on those
    // forms, so only the canonical dotted quad is accepted, even with allowLoopback.
    if (rawHost.toLowerCase() !== host)
      return refuse("numeric-host-form", `"${rawHost}" is read as ${host}; write a dotted quad`);
    return ok(classifyIpv4(v4));
  }
  if (host.endsWith(".")) return refuse("trailing-dot", "remove the trailing dot from the host");
  if (METADATA_NAMES.has(host)) return ok("metadata");
  if (host === "localhost" || host.endsWith(".localhost")) return ok("loopback");
  const labels = host.split(".");
  if (host.length > 253 || !labels.every((l) => LABEL.test(l)))
    return refuse("invalid-hostname", "the host is not a valid DNS name");
  if (labels.length < 2)
    return refuse("single-label-host", "use a fully qualified public DNS name");
  const tld = labels[labels.length - 1]!;
  if (/^\d+$/.test(tld)) return refuse("numeric-host-form", "the top-level label is numeric");
  if (SPECIAL_USE.has(tld))
    return refuse("special-use-name", `.${tld} names are not public; use a public DNS name`);
  return ok("public");
}

function addressMessage(cls: Exclude<AddressClass, "public">): string {
  switch (cls) {
    case "loopback":
      return "loopback hosts are not allowed (local development switch is off)";
    case "private":
      return "private-network addresses are not allowed";
    case "link-local":
      return "link-local addresses are not allowed";
    case "cgnat":
      return "carrier-grade NAT addresses (100.64.0.0/10) are not allowed";
    case "metadata":
      return "cloud metadata endpoints are not allowed";
    case "unspecified":
      return "the unspecified address is not allowed";
    case "multicast":
      return "multicast addresses are not allowed";
    case "broadcast":
      return "the broadcast address is not allowed";
    case "reserved":
      return "reserved or documentation addresses are not allowed";
    case "ipv4-mapped":
      return "IPv4-mapped IPv6 addresses are not allowed; use the IPv4 address";
    case "ipv4-embedded":
      return "IPv6 addresses that embed an IPv4 address (NAT64, 6to4, Teredo) are not allowed";
  }
}

function refuse(reason: TargetUrlRule, message: string): Err<TargetUrlError> {
  return err({ reason, message });
}
