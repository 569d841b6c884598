import { describe, expect, it } from "vitest";
import {
  DEFAULT_DEPENDENCY_POLICY,
  describeDependencyRefusal,
  readRequirements,
  splitRequirementLines,
} from "../src/index.ts";
import { fixture, only, pinned, policyWith, refusalsOf, sha256 } from "./support.ts";

const read = (text: string, policy = DEFAULT_DEPENDENCY_POLICY) => readRequirements(text, policy);
const HASH = `--hash=sha256:${sha256("x")}`;

describe("a real hashed requirements.txt", () => {
  it("reads uv's export of requests and attrs with their PyPI hashes", () => {
    const set = read(fixture("python/requirements.txt"));
    if (!set.ok) throw new Error(set.error.map(describeDependencyRefusal).join("\n"));
    expect(set.value.ecosystem).toBe("PyPI");
    expect(set.value.lockfile).toBe("requirements.txt");
    expect(set.value.packages.map((p) => `${p.name}==${p.version}`)).toEqual([
      "attrs==26.1.0",
      "certifi==2026.10.19.post1",
      "charset-normalizer==3.5.3",
      "idna==3.20",
      "requests==2.32.3",
      "urllib3==2.8.0",
    ]);
    const requests = set.value.packages.find((p) => p.name === "requests")!;
    expect(requests).toMatchObject({ direct: true, dev: false, resolved: null });
    expect(requests.path).toMatch(/^requirements\.txt:\d+$/);
    for (const h of requests.integrity.split(" ")) expect(h).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(requests.integrity.split(" ")).toHaveLength(2);
  });
});

describe("lines", () => {
  it("joins continuations, drops comments and blank lines, and numbers each by its first line", () => {
    const text = "# top\n\na==1 \\\n  --hash=sha256:aa # trailing\nb==2 # c\n#x \\\nc==3\n";
    expect(splitRequirementLines(text)).toEqual([
      { line: 3, text: "a==1   --hash=sha256:aa" },
      { line: 5, text: "b==2" },
      { line: 7, text: "c==3" },
    ]);
  });

  it("keeps a # that is not after whitespace (a URL fragment) in the line", () => {
    expect(splitRequirementLines("x @ https://h.test/a#sha256=1\n")[0]!.text).toContain("#sha256");
  });

  it("reads CRLF files and a byte-order mark", () => {
    const set = read(`\uFEFF${pinned("requests", "2.32.3").replace(/\n/g, "\r\n")}`);
    expect(set.ok && set.value.packages[0]!.name).toBe("requests");
  });

  it("reads an empty file, or one of comments only, as no packages", () => {
    for (const text of ["", "\n\n", "# nothing\n   # at all\n"]) {
      expect(read(text)).toEqual({
        ok: true,
        value: { ecosystem: "PyPI", lockfile: "requirements.txt", packages: [] },
      });
    }
  });
});

describe("pins", () => {
  it("normalizes names per PEP 503 and keeps extras and markers out of the name", () => {
    const text =
      `Typing_Extensions==4.12.2 ${HASH}\n` +
      `requests[socks,security]==2.32.3 ${HASH}\n` +
      `colorama==0.4.6 ; sys_platform == "win32" ${HASH}\n`;
    const set = read(text);
    if (!set.ok) throw new Error(set.error.map(describeDependencyRefusal).join("\n"));
    expect(set.value.packages.map((p) => p.name)).toEqual([
      "colorama",
      "requests",
      "typing-extensions",
    ]);
  });

  it.each([
    ["no version", "requests"],
    [">=", "requests>=2.0"],
    ["~=", "requests~=2.32"],
    ["!=", "requests!=2.0"],
    ["a range", "requests>=2,<3"],
    ["a wildcard", "requests==2.*"],
    ["arbitrary equality", "requests===2.32.3"],
    ["two pins", "requests==2.32.3,==2.32.4"],
    ["a version that is not PEP 440", "requests==two"],
  ])("refuses %s as inexact, naming the line and the package", (_what, requirement) => {
    const r = only(refusalsOf(read(`# head\n${requirement} ${HASH}\n`)), "inexact-version");
    expect(r).toMatchObject({ package: "requests", line: 2, file: "requirements.txt" });
  });

  it("accepts PEP 440 versions in their spellings: post, pre, dev, epoch, local", () => {
    for (const v of ["1.0.post1", "1.0rc1", "1.0.dev3", "1!2.0", "2.0.0+cpu", "2024.1"]) {
      const set = read(`torch==${v} ${HASH}\n`);
      expect(set.ok && set.value.packages[0]!.version, v).toBe(v);
    }
  });

  it("accepts a parenthesized pin", () => {
    expect(read(`requests (==2.32.3) ${HASH}\n`).ok).toBe(true);
  });
});

describe("hashes", () => {
  it("refuses a line without a hash", () => {
    const r = only(refusalsOf(read("requests==2.32.3\n")), "missing-integrity");
    expect(r).toMatchObject({ package: "requests", line: 1 });
  });

  it("refuses a line with only a sha384 or sha512 (a sha256 is required)", () => {
    const r = only(
      refusalsOf(read(`requests==2.32.3 --hash=sha512:${"a".repeat(128)}\n`)),
      "missing-integrity",
    );
    expect(r.package).toBe("requests");
  });

  it.each([
    ["md5", `--hash=md5:${"a".repeat(32)}`],
    ["a short sha256", "--hash=sha256:abc"],
    ["non-hex", `--hash=sha256:${"z".repeat(64)}`],
    ["an empty value", "--hash="],
  ])("refuses %s", (_what, option) => {
    const r = only(refusalsOf(read(`requests==2.32.3 ${option}\n`)), "weak-integrity");
    expect(r.package).toBe("requests");
  });

  it("accepts --hash with a space and upper-case hex, storing lower case", () => {
    const set = read(`requests==2.32.3 --hash sha256:${sha256("y").toUpperCase()}\n`);
    expect(set.ok && set.value.packages[0]!.integrity).toBe(`sha256:${sha256("y")}`);
  });
});

describe("sources and options", () => {
  it.each([
    ["-e .", "non-registry-source"],
    ["--editable git+https://x.test/r.git#egg=r", "non-registry-source"],
    ["-r other.txt", "include"],
    ["--requirement=other.txt", "include"],
    ["-c constraints.txt", "include"],
    ["-i https://evil.test/simple", "index-option"],
    ["--index-url=https://evil.test/simple", "index-option"],
    ["--extra-index-url https://evil.test/simple", "index-option"],
    ["-f https://evil.test/wheels", "index-option"],
    ["--find-links ./wheels", "index-option"],
    ["--trusted-host evil.test", "index-option"],
    ["--pre", "unsupported-option"],
  ])("refuses %s", (line, rule) => {
    const refusals = refusalsOf(read(`${pinned("requests", "2.32.3")}${line}\n`));
    expect(refusals.map((r) => [r.rule, r.line])).toEqual([[rule, 3]]);
  });

  it("accepts --require-hashes", () => {
    expect(read(`--require-hashes\n${pinned("requests", "2.32.3")}`).ok).toBe(true);
  });

  it.each([
    ["a direct reference", `requests @ https://x.test/requests-2.32.3.tar.gz ${HASH}`, "requests"],
    ["a direct reference without spaces", `requests@https://x.test/r.whl ${HASH}`, "requests"],
    ["a bare URL", `https://x.test/requests-2.32.3-py3-none-any.whl ${HASH}`, null],
    ["a VCS URL", "git+https://github.com/psf/requests.git", null],
    ["a local path", `./vendor/requests ${HASH}`, null],
    ["a local wheel", `requests-2.32.3-py3-none-any.whl ${HASH}`, null],
  ])("refuses %s", (_what, line, pkg) => {
    const r = only(refusalsOf(read(`${line}\n`)), "non-registry-source");
    expect(r).toMatchObject({ package: pkg, line: 1 });
  });

  it("refuses a per-requirement option other than --hash", () => {
    const r = only(
      refusalsOf(read(`requests==2.32.3 ${HASH} --config-settings x=1\n`)),
      "unsupported-option",
    );
    expect(r.package).toBe("requests");
  });

  it("refuses a line that is not a requirement", () => {
    expect(only(refusalsOf(read(`[oops]==1 ${HASH}\n`)), "unreadable").line).toBe(1);
  });

  it("lists every refusal of a file, each with its line", () => {
    const text = `a==1\nb>=2 ${HASH}\n-r more.txt\nc==3 ${HASH}\n`;
    expect(refusalsOf(read(text)).map((r) => [r.rule, r.line, r.package])).toEqual([
      ["include", 3, null],
      ["missing-integrity", 1, "a"],
      ["inexact-version", 2, "b"],
    ]);
  });
});

describe("duplicates, limits and typosquats", () => {
  it("refuses a project pinned twice, even spelled differently", () => {
    const r = only(
      refusalsOf(
        read(`${pinned("typing_extensions", "4.0.0")}${pinned("Typing-Extensions", "4.1.0")}`),
      ),
      "duplicate-package",
    );
    expect(r).toMatchObject({ package: "typing-extensions", line: 3 });
    expect(r.detail).toMatch(/already pinned on line 1/);
  });

  it("accepts a project pinned twice under environment markers", () => {
    const text =
      `numpy==1.26.4 ; python_version < "3.12" ${HASH}\n` +
      `numpy==2.1.0 ; python_version >= "3.12" ${HASH}\n`;
    const set = read(text);
    expect(set.ok && set.value.packages.map((p) => p.version)).toEqual(["1.26.4", "2.1.0"]);
  });

  it("accepts exactly maxPackages and refuses one more", () => {
    const lines = (n: number) =>
      Array.from({ length: n }, (_, i) => pinned(`zz-fixture-${i}`, "1.0")).join("");
    const policy = policyWith({ maxPackages: 5 });
    expect(read(lines(5), policy).ok).toBe(true);
    expect(only(refusalsOf(read(lines(6), policy)), "too-many-packages")).toMatchObject({
      count: 6,
      limit: 5,
    });
  });

  it("refuses a file over the byte bound", () => {
    const text = pinned("requests", "2.32.3");
    const limit = new TextEncoder().encode(text).byteLength - 1;
    expect(
      only(refusalsOf(read(text, policyWith({ maxLockBytes: limit }))), "too-large"),
    ).toMatchObject({
      bytes: limit + 1,
    });
  });

  it("refuses reqeusts as a slip of requests, and accepts it when allowed", () => {
    const text = pinned("reqeusts", "1.0");
    expect(only(refusalsOf(read(text)), "typosquat")).toMatchObject({
      package: "reqeusts",
      resembles: "requests",
      line: 1,
    });
    expect(read(text, policyWith({ allowNames: ["Reqeusts"] })).ok).toBe(true);
  });
});
