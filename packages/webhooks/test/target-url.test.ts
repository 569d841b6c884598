// Every target-URL rule with concrete URLs. Each row names the rule the URL must break, or
// "ok" with the normalized URL that is stored and fetched.
import { describe, expect, it } from "vitest";
import {
  classifyIpv4,
  classifyIpv6,
  parseIpv4,
  parseIpv6,
  validateTargetUrl,
  type TargetUrlRule,
} from "../src/index.ts";

type Row = [url: string, expected: TargetUrlRule | "ok"];

const REJECTED: Row[] = [
  // scheme and port
  ["http://hooks.example.org/bouts", "scheme"],
  ["ftp://hooks.example.org/", "scheme"],
  ["file:///etc/passwd", "scheme"],
  ["javascript:alert(1)", "scheme"],
  ["data:text/plain,hi", "scheme"],
  ["ws://hooks.example.org/", "scheme"],
  ["https://hooks.example.org:8443/", "port"],
  ["https://hooks.example.org:80/", "port"],
  ["https:hooks.example.org/", "invalid-url"],
  ["not a url", "forbidden-character"],
  ["/relative/path", "invalid-url"],
  // credentials and parser confusion
  ["https://user:pw@hooks.example.org/", "credentials"],
  ["https://user@hooks.example.org/", "credentials"],
  ["https://hooks.example.org@127.0.0.1/", "credentials"],
  ["https://hooks.example.org\\@127.0.0.1/", "forbidden-character"],
  ["https://hooks.exa\tmple.org/", "forbidden-character"],
  ["https://hooks.example.org/\n", "forbidden-character"],
  // loopback, in every spelling
  ["https://127.0.0.1/", "loopback"],
  ["https://127.255.255.254/", "loopback"],
  ["https://localhost/", "loopback"],
  ["https://LOCALHOST/", "loopback"],
  ["https://api.localhost/", "loopback"],
  ["https://[::1]/", "loopback"],
  ["https://[0:0:0:0:0:0:0:1]/", "loopback"],
  // numeric host forms that WHATWG rewrites to a dotted quad
  ["https://2130706433/", "numeric-host-form"],
  ["https://0177.0.0.1/", "numeric-host-form"],
  ["https://0x7f.1/", "numeric-host-form"],
  ["https://0x7f000001/", "numeric-host-form"],
  ["https://127.1/", "numeric-host-form"],
  ["https://16843009/", "numeric-host-form"], // = 1.1.1.1, public but not canonical
  ["https://1.2.3.0x4/", "numeric-host-form"],
  ["https://%31%32%37.0.0.1/", "numeric-host-form"],
  ["https://127\u30020\u30020\u30021/", "numeric-host-form"], // ideographic full stops
  ["https://0/", "numeric-host-form"],
  ["https://1.1.1.1./", "numeric-host-form"], // WHATWG drops the dot of an IPv4 host
  // trailing dots and malformed names
  ["https://hooks.example.org./", "trailing-dot"],
  ["https://localhost./", "trailing-dot"],
  ["https://a..example.org/", "invalid-hostname"],
  ["https://-bad-.example.org/", "invalid-hostname"],
  ["https://under_score.example.org/", "invalid-hostname"],
  ["https://intranet/", "single-label-host"],
  // special-use and internal names
  ["https://printer.local/", "special-use-name"],
  ["https://db.internal/", "special-use-name"],
  ["https://router.home.arpa/", "special-use-name"],
  ["https://site.test/", "special-use-name"],
  ["https://x.onion/", "special-use-name"],
  // metadata services
  ["https://169.254.169.254/latest/meta-data/", "metadata"],
  ["https://metadata.google.internal/computeMetadata/v1/", "metadata"],
  ["https://[fd00:ec2::254]/", "metadata"],
  ["https://100.100.100.200/", "metadata"],
  // private, link-local, CGNAT
  ["https://10.0.0.1/", "private"],
  ["https://172.16.0.1/", "private"],
  ["https://172.31.255.255/", "private"],
  ["https://192.168.1.1/", "private"],
  ["https://[fc00::1]/", "private"],
  ["https://[fd12:3456::1]/", "private"],
  ["https://169.254.0.1/", "link-local"],
  ["https://[fe80::1]/", "link-local"],
  ["https://100.64.0.1/", "cgnat"],
  ["https://100.127.255.254/", "cgnat"],
  // unspecified, multicast, broadcast, reserved
  ["https://0.0.0.0/", "unspecified"],
  ["https://[::]/", "unspecified"],
  ["https://224.0.0.1/", "multicast"],
  ["https://[ff02::1]/", "multicast"],
  ["https://255.255.255.255/", "broadcast"],
  ["https://240.0.0.1/", "reserved"],
  ["https://192.0.2.10/", "reserved"],
  ["https://198.18.0.1/", "reserved"],
  ["https://[2001:db8::1]/", "reserved"],
  // IPv4 inside IPv6
  ["https://[::ffff:127.0.0.1]/", "ipv4-mapped"],
  ["https://[::ffff:7f00:1]/", "ipv4-mapped"],
  ["https://[0:0:0:0:0:ffff:a9fe:a9fe]/", "ipv4-mapped"],
  ["https://[::ffff:8.8.8.8]/", "ipv4-mapped"],
  ["https://[::127.0.0.1]/", "ipv4-mapped"],
  ["https://[64:ff9b::7f00:1]/", "ipv4-embedded"],
  ["https://[2002:7f00:1::]/", "ipv4-embedded"],
  ["https://[2001:0:4136:e378::1]/", "ipv4-embedded"],
];

const ACCEPTED: [url: string, normalized: string][] = [
  ["https://hooks.example.org/bouts", "https://hooks.example.org/bouts"],
  ["https://hooks.example.org:443/bouts?x=1", "https://hooks.example.org/bouts?x=1"],
  ["HTTPS://Hooks.Example.ORG/", "https://hooks.example.org/"],
  ["https://8.8.8.8/hook", "https://8.8.8.8/hook"],
  ["https://172.32.0.1/", "https://172.32.0.1/"], // just outside 172.16/12
  ["https://100.128.0.1/", "https://100.128.0.1/"], // just outside 100.64/10
  ["https://[2606:4700:4700::1111]/", "https://[2606:4700:4700::1111]/"],
  ["https://bücher.de/", "https://xn--bcher-kva.de/"],
  ["https://my-app.workers.dev/hook", "https://my-app.workers.dev/hook"],
];

describe("validateTargetUrl: production rules", () => {
  it.each(REJECTED)("rejects %s (%s)", (url, reason) => {
    const r = validateTargetUrl(url);
    expect(r.ok ? "ok" : r.error.reason).toBe(reason);
    if (!r.ok) expect(r.error.message.length).toBeGreaterThan(10);
  });

  it.each(ACCEPTED)("accepts %s as %s", (url, normalized) => {
    expect(validateTargetUrl(url)).toEqual({
      ok: true,
      value: { url: normalized, loopback: false },
    });
  });

  it("rejects URLs over 2048 characters", () => {
    const url = `https://hooks.example.org/${"a".repeat(2048)}`;
    expect(validateTargetUrl(url)).toMatchObject({ ok: false, error: { reason: "too-long" } });
  });
});

describe("validateTargetUrl: the platform's own hosts", () => {
  const own = { blockedHosts: ["bouts.dev"] };

  it.each(["https://bouts.dev/hook", "https://api.bouts.dev/v1/admin", "https://API.Bouts.dev/"])(
    "refuses %s",
    (url) => {
      expect(validateTargetUrl(url, own)).toMatchObject({
        ok: false,
        error: { reason: "blocked-host" },
      });
    },
  );

  it("does not refuse look-alike names", () => {
    expect(validateTargetUrl("https://notbouts.dev/hook", own).ok).toBe(true);
    expect(validateTargetUrl("https://bouts.dev.example.org/", own).ok).toBe(true);
  });
});

describe("validateTargetUrl: the local-development switch", () => {
  const dev = { allowLoopback: true };

  it.each([
    ["http://127.0.0.1:8787/hook", "http://127.0.0.1:8787/hook"],
    ["http://localhost:3000/", "http://localhost:3000/"],
    ["https://localhost:9443/", "https://localhost:9443/"],
    ["http://[::1]:8080/", "http://[::1]:8080/"],
  ])("allows the loopback receiver %s", (url, normalized) => {
    expect(validateTargetUrl(url, dev)).toEqual({
      ok: true,
      value: { url: normalized, loopback: true },
    });
  });

  it.each<Row>([
    ["http://10.0.0.1:8080/", "private"],
    ["http://192.168.1.10/", "private"],
    ["http://169.254.169.254/", "metadata"],
    ["http://hooks.example.org/", "scheme"],
    ["https://hooks.example.org:8443/", "port"],
    ["http://2130706433:8080/", "numeric-host-form"],
    ["http://127.1:8080/", "numeric-host-form"],
    ["http://user:pw@127.0.0.1:8080/", "credentials"],
    ["http://[::ffff:127.0.0.1]:8080/", "ipv4-mapped"],
    ["http://127.0.0.2:8080/", "loopback"],
    ["http://api.localhost:8080/", "loopback"],
  ])("still rejects %s (%s)", (url, reason) => {
    const r = validateTargetUrl(url, dev);
    expect(r.ok ? "ok" : r.error.reason).toBe(reason);
  });

  it("admits only the allowed loopback ports, never a blocked one, with loopbackPorts", () => {
    const local = { allowLoopback: true, loopbackPorts: { min: 9700, max: 9799, blocked: [9787] } };
    const reason = (url: string) => {
      const r = validateTargetUrl(url, local);
      return r.ok ? "ok" : r.error.reason;
    };
    expect(reason("http://127.0.0.1:9797/hook")).toBe("ok");
    expect(reason("http://[::1]:9700/")).toBe("ok");
    expect(reason("http://localhost:9799/")).toBe("ok");
    for (const url of [
      "http://127.0.0.1:9787/", // blocked: the platform's own port
      "http://127.0.0.1:8787/v1/agents",
      "http://localhost:8080/run",
      "http://127.0.0.1/", // port 80
      "https://localhost/", // port 443
      "http://[::1]:9800/",
    ])
      expect([url, reason(url)]).toEqual([url, "loopback-port"]);
    // Public targets are not affected by the loopback rule.
    expect(reason("https://hooks.example.org/")).toBe("ok");
  });

  it("is off by default", () => {
    expect(validateTargetUrl("http://127.0.0.1:8787/")).toMatchObject({
      ok: false,
      error: { reason: "loopback" },
    });
  });
});

describe("IP literal parsing", () => {
  it("parses only canonical dotted quads", () => {
    expect(parseIpv4("1.2.3.4")).toBe(0x01020304);
    expect(parseIpv4("255.255.255.255")).toBe(0xffffffff);
    for (const bad of ["01.2.3.4", "1.2.3", "1.2.3.256", "0x1.2.3.4", "1.2.3.4.5", " 1.2.3.4"])
      expect(parseIpv4(bad)).toBeNull();
  });

  it("parses compressed IPv6 and a trailing dotted quad", () => {
    expect(parseIpv6("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6("2001:db8::8:800:200c:417a")).toEqual([
      0x2001, 0xdb8, 0, 0, 8, 0x800, 0x200c, 0x417a,
    ]);
    expect(parseIpv6("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(parseIpv6("1:2:3:4:5:6:1.2.3.4")).toEqual([1, 2, 3, 4, 5, 6, 0x0102, 0x0304]);
    for (const bad of ["1::2::3", "12345::", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "fe80::1%eth0"])
      expect(parseIpv6(bad)).toBeNull();
  });

  it("classifies range boundaries", () => {
    expect(classifyIpv4(parseIpv4("9.255.255.255")!)).toBe("public");
    expect(classifyIpv4(parseIpv4("11.0.0.0")!)).toBe("public");
    expect(classifyIpv4(parseIpv4("172.15.255.255")!)).toBe("public");
    expect(classifyIpv4(parseIpv4("192.169.0.0")!)).toBe("public");
    expect(classifyIpv4(parseIpv4("223.255.255.255")!)).toBe("public");
    expect(classifyIpv6(parseIpv6("2001:4860:4860::8888")!)).toBe("public");
    expect(classifyIpv6(parseIpv6("4000::1")!)).toBe("reserved");
  });
});
