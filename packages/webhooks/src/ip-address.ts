/**
 * @module webhooks/ip-address
 * Parses canonical IP literals and classifies them by the special-purpose registries
 * (RFC 6890 and the IANA IPv4/IPv6 special-purpose address tables). Pure.
 *
 * Invariant: only `public` addresses may receive webhooks; every other class is a reason to
 * refuse. IPv6 is public only inside global unicast 2000::/3, minus the blocks listed below.
 */

/** The class of an address; anything but `public` is refused as a webhook target. */
export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "ipv4-mapped"
  | "ipv4-embedded";

type Rule4 = readonly [cidr: string, cls: AddressClass];

// First match wins, so the metadata host sits before its link-local block.
const IPV4_RULES: readonly Rule4[] = [
  ["169.254.169.254/32", "metadata"], // AWS, GCP, Azure, OpenStack instance metadata
  ["100.100.100.200/32", "metadata"], // Alibaba Cloud instance metadata
  ["0.0.0.0/8", "unspecified"], // "this network"; 0.0.0.0 reaches the local host on Linux
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "cgnat"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "reserved"], // IETF protocol assignments
  ["192.0.2.0/24", "reserved"], // TEST-NET-1
  ["192.88.99.0/24", "reserved"], // 6to4 relay anycast (deprecated)
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "reserved"], // benchmarking
  ["198.51.100.0/24", "reserved"], // TEST-NET-2
  ["203.0.113.0/24", "reserved"], // TEST-NET-3
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"], // future use
];

type Rule6 = readonly [prefix: readonly number[], bits: number, cls: AddressClass];

const IPV6_RULES: readonly Rule6[] = [
  [[0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254], 128, "metadata"], // AWS IMDS over IPv6
  [[0, 0, 0, 0, 0, 0, 0, 0], 128, "unspecified"],
  [[0, 0, 0, 0, 0, 0, 0, 1], 128, "loopback"],
  [[0, 0, 0, 0, 0, 0xffff], 96, "ipv4-mapped"], // ::ffff:a.b.c.d
  [[0, 0, 0, 0, 0, 0], 96, "ipv4-mapped"], // ::a.b.c.d (deprecated IPv4-compatible)
  [[0, 0, 0, 0, 0xffff, 0], 96, "ipv4-mapped"], // ::ffff:0:a.b.c.d (SIIT translated)
  [[0x64, 0xff9b], 96, "ipv4-embedded"], // NAT64 well-known prefix
  [[0x64, 0xff9b, 1], 48, "ipv4-embedded"], // local-use NAT64
  [[0x2002], 16, "ipv4-embedded"], // 6to4
  [[0x2001, 0], 32, "ipv4-embedded"], // Teredo
  [[0x2001, 0x0db8], 32, "reserved"], // documentation
  [[0x3fff, 0], 20, "reserved"], // documentation (RFC 9637)
  [[0x2001, 0], 23, "reserved"], // IETF protocol assignments
  [[0xfc00], 7, "private"], // unique local
  [[0xfe80], 10, "link-local"],
  [[0xfec0], 10, "private"], // site-local (deprecated)
  [[0xff00], 8, "multicast"],
  [[0x2000], 3, "public"], // global unicast
];

const OCTET = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const DOTTED_QUAD = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

/**
 * Parses a canonical dotted-quad IPv4 address (no leading zeros, no shorthand) into a 32-bit
 * unsigned number; `null` for anything else.
 */
export function parseIpv4(text: string): number | null {
  const m = DOTTED_QUAD.exec(text);
  if (!m) return null;
  return ((+m[1]! << 24) | (+m[2]! << 16) | (+m[3]! << 8) | +m[4]!) >>> 0;
}

/**
 * Parses an IPv6 address (without brackets; `::` compression and a trailing dotted quad
 * allowed) into eight 16-bit groups; `null` when it is not one.
 */
export function parseIpv6(text: string): number[] | null {
  if (text.includes("%")) return null; // zone ids never name a public host
  let tail: number[] = [];
  let head = text;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [v4 >>> 16, v4 & 0xffff];
    head = text.slice(0, lastColon + 1);
    if (head.endsWith(":") && !head.endsWith("::")) head = head.slice(0, -1);
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === "") return [];
    const groups = part.split(":");
    if (!groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return null;
    return groups.map((g) => parseInt(g, 16));
  };
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if (!left || !right) return null;
  const given = left.length + right.length + tail.length;
  if (halves.length === 2) {
    if (given > 7) return null;
    return [...left, ...new Array<number>(8 - given).fill(0), ...right, ...tail];
  }
  return given === 8 ? [...left, ...tail] : null;
}

/** Classifies an IPv4 address given as a 32-bit unsigned number. */
export function classifyIpv4(address: number): AddressClass {
  for (const [cidr, cls] of IPV4_RULES) {
    const [base, bits] = cidr.split("/");
    const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
    if ((address & mask) >>> 0 === (parseIpv4(base!)! & mask) >>> 0) return cls;
  }
  return "public";
}

/** Classifies an IPv6 address given as eight 16-bit groups. */
export function classifyIpv6(groups: readonly number[]): AddressClass {
  for (const [prefix, bits, cls] of IPV6_RULES) {
    if (matchesPrefix(groups, prefix, bits)) return cls;
  }
  return "reserved"; // outside 2000::/3 and not otherwise named
}

function matchesPrefix(
  groups: readonly number[],
  prefix: readonly number[],
  bits: number,
): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const take = Math.min(16, bits);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if (((groups[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}
