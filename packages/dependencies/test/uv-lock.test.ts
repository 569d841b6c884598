import { describe, expect, it } from "vitest";
import { DEFAULT_DEPENDENCY_POLICY, describeDependencyRefusal, readUvLock } from "../src/index.ts";
import { fixture, only, policyWith, refusalsOf, uvLock, uvPackage } from "./support.ts";

const read = (text: string, policy = DEFAULT_DEPENDENCY_POLICY) => readUvLock(text, policy);

describe("a real uv.lock", () => {
  it("reads uv's lock of requests, attrs and a pytest dev group", () => {
    const set = read(fixture("python/uv.lock"));
    if (!set.ok) throw new Error(set.error.map(describeDependencyRefusal).join("\n"));
    const by = new Map(set.value.packages.map((p) => [p.name, p]));
    expect([...by.keys()]).toEqual([
      "attrs",
      "certifi",
      "charset-normalizer",
      "colorama",
      "idna",
      "iniconfig",
      "packaging",
      "pluggy",
      "pytest",
      "requests",
      "urllib3",
    ]);
    expect(by.get("requests")).toMatchObject({ direct: true, dev: false, version: "2.32.3" });
    expect(by.get("urllib3")).toMatchObject({ direct: false, dev: false });
    expect(by.get("pytest")).toMatchObject({ direct: true, dev: true });
    expect(by.get("pluggy")).toMatchObject({ direct: false, dev: true });
    expect(by.get("attrs")!.resolved).toMatch(
      /^https:\/\/files\.pythonhosted\.org\/.*attrs-26\.1\.0/,
    );
    expect(by.get("attrs")!.integrity.split(" ")).toHaveLength(2); // sdist and wheel
    expect(by.get("charset-normalizer")!.integrity.split(" ").length).toBeGreaterThan(20);
    expect(by.get("idna")!.path).toBe("uv.lock:idna@3.20");
  });
});

describe("sources", () => {
  it.each([
    ["git", 'source = { git = "https://github.com/psf/requests?rev=main#abc" }'],
    ["a URL", 'source = { url = "https://x.test/requests-2.32.3.tar.gz" }'],
    ["a path", 'source = { path = "vendor/requests-2.32.3-py3-none-any.whl" }'],
    ["a directory", 'source = { directory = "../requests" }'],
    ["an editable checkout", 'source = { editable = "libs/requests" }'],
    ["a virtual workspace member", 'source = { virtual = "libs/requests" }'],
  ])("refuses a package from %s", (_what, source) => {
    const table = uvPackage("requests", "2.32.3").replace(
      'source = { registry = "https://pypi.org/simple" }',
      source,
    );
    const r = only(refusalsOf(read(uvLock(["requests"], [table]))), "non-registry-source");
    expect(r).toMatchObject({ package: "requests", file: "uv.lock" });
  });

  it("refuses another index, and accepts it when the policy names it", () => {
    const table = uvPackage("requests", "2.32.3").replace(
      "https://pypi.org/simple",
      "https://pypi.mirror.test/simple/",
    );
    const text = uvLock(["requests"], [table]);
    expect(only(refusalsOf(read(text)), "non-registry-source").detail).toMatch(/mirror/);
    const mirror = policyWith({
      registries: { npm: [], PyPI: ["https://pypi.mirror.test/simple"] },
    });
    expect(read(text, mirror).ok).toBe(true);
  });

  it("refuses a wheel off the file host, and a look-alike host", () => {
    for (const host of ["https://evil.test/", "https://files.pythonhosted.org.evil.test/"]) {
      const table = uvPackage("requests", "2.32.3").replace(
        "https://files.pythonhosted.org/",
        host,
      );
      const r = only(refusalsOf(read(uvLock(["requests"], [table]))), "non-registry-source");
      expect(r.package, host).toBe("requests");
    }
  });

  it("skips the project itself, virtual or editable at the root", () => {
    const text = uvLock(["requests"], [uvPackage("requests", "2.32.3")]).replace(
      'source = { virtual = "." }',
      'source = { editable = "." }',
    );
    const set = read(text);
    expect(set.ok && set.value.packages.map((p) => p.name)).toEqual(["requests"]);
  });
});

describe("hashes", () => {
  const table = uvPackage("requests", "2.32.3");

  it("refuses a file without a hash", () => {
    const text = uvLock(["requests"], [table.replace(/, hash = "sha256:[0-9a-f]+"/, "")]);
    expect(only(refusalsOf(read(text)), "missing-integrity").package).toBe("requests");
  });

  it("refuses a package with no files at all", () => {
    const text = uvLock(["requests"], [table.replace(/wheels = \[[\s\S]*\]/, "")]);
    expect(only(refusalsOf(read(text)), "missing-integrity").detail).toMatch(/no sdist or wheel/);
  });

  it("refuses a hash that is not sha256", () => {
    const text = uvLock(["requests"], [table.replace(/sha256:[0-9a-f]+/, `md5:${"a".repeat(32)}`)]);
    expect(only(refusalsOf(read(text)), "weak-integrity").package).toBe("requests");
  });

  it("refuses an sdist without a hash beside hashed wheels", () => {
    const sdist = `sdist = { url = "https://files.pythonhosted.org/packages/r-2.32.3.tar.gz", size = 9 }`;
    const text = uvLock(["requests"], [table.replace("wheels = [", `${sdist}\nwheels = [`)]);
    expect(only(refusalsOf(read(text)), "missing-integrity").package).toBe("requests");
  });
});

describe("names, versions, limits", () => {
  it("refuses a version that is not PEP 440", () => {
    const text = uvLock(
      ["requests"],
      [uvPackage("requests", "2.32.3").replace('"2.32.3"', '"latest"')],
    );
    expect(only(refusalsOf(read(text)), "inexact-version").package).toBe("requests");
  });

  it("refuses a name that is not PEP 508", () => {
    const text = uvLock(
      [],
      [uvPackage("requests", "1.0").replace('name = "requests"', 'name = "-bad"')],
    );
    expect(only(refusalsOf(read(text)), "invalid-name").package).toBe("-bad");
  });

  it("reads a lock of the project alone as no packages", () => {
    expect(read(uvLock([], []))).toEqual({
      ok: true,
      value: { ecosystem: "PyPI", lockfile: "uv.lock", packages: [] },
    });
  });

  it("accepts exactly maxPackages and refuses one more, not counting the project", () => {
    const tables = (n: number) =>
      Array.from({ length: n }, (_, i) => uvPackage(`zz-fixture-${i}`, "1.0"));
    const policy = policyWith({ maxPackages: 4 });
    expect(read(uvLock([], tables(4)), policy).ok).toBe(true);
    expect(
      only(refusalsOf(read(uvLock([], tables(5)), policy)), "too-many-packages"),
    ).toMatchObject({
      count: 5,
      limit: 4,
    });
  });

  it("refuses a slip of a popular name", () => {
    const text = uvLock(["reqeusts"], [uvPackage("reqeusts", "1.0")]);
    expect(only(refusalsOf(read(text)), "typosquat").resembles).toBe("requests");
  });

  it("marks a package reached only from a dev group as dev", () => {
    const text = uvLock(
      ["requests"],
      [
        uvPackage("requests", "2.32.3"),
        uvPackage("pytest", "8.3.5", 'dependencies = [{ name = "pluggy" }]'),
        uvPackage("pluggy", "1.5.0"),
      ],
      ["pytest"],
    );
    const set = read(text);
    if (!set.ok) throw new Error(set.error.map(describeDependencyRefusal).join("\n"));
    expect(set.value.packages.map((p) => [p.name, p.direct, p.dev])).toEqual([
      ["pluggy", false, true],
      ["pytest", true, true],
      ["requests", true, false],
    ]);
  });
});

describe("unreadable locks", () => {
  it.each([
    ["not TOML", "version = = 1", "unreadable"],
    ["version 2", "version = 2", "unsupported-lockfile"],
    ["no version", 'requires-python = ">=3.11"', "unsupported-lockfile"],
    ["package not an array of tables", "version = 1\npackage = 3", "unreadable"],
  ] as const)("refuses a lock that is %s", (_what, text, rule) => {
    expect(only(refusalsOf(read(text)), rule).package).toBeNull();
  });

  it("refuses __proto__ keys instead of reading them", () => {
    const text = `version = 1\n[[package]]\n__proto__ = { polluted = true }\nname = "x"\n`;
    expect(only(refusalsOf(read(text)), "unreadable").file).toBe("uv.lock");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses inline tables nested past the bound", () => {
    const deep = `${"[".repeat(40)}1${"]".repeat(40)}`;
    expect(only(refusalsOf(read(`version = 1\nx = ${deep}\n`)), "unreadable").detail).toMatch(
      /TOML/,
    );
  });

  it("refuses a lock over the byte bound", () => {
    const text = uvLock([], []);
    const limit = new TextEncoder().encode(text).byteLength - 1;
    expect(
      only(refusalsOf(read(text, policyWith({ maxLockBytes: limit }))), "too-large").file,
    ).toBe("uv.lock");
  });
});
