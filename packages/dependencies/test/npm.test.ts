import { describe, expect, it } from "vitest";
import {
  DEFAULT_DEPENDENCY_POLICY,
  describeDependencyRefusal,
  parseLockKey,
  readNpmLock,
} from "../src/index.ts";
import {
  entry,
  fixture,
  manyPackages,
  npmProject,
  only,
  policyWith,
  refusalsOf,
  sri,
} from "./support.ts";

const read = (p: { manifest: string; lock: string }, policy = DEFAULT_DEPENDENCY_POLICY) =>
  readNpmLock(p.manifest, p.lock, policy);
const readFixture = (dir: string, policy = DEFAULT_DEPENDENCY_POLICY) =>
  readNpmLock(fixture(`npm/${dir}/package.json`), fixture(`npm/${dir}/package-lock.json`), policy);

describe("real lockfiles", () => {
  it("reads npm's own lock of hono and zod, which leaves resolved to the registry", () => {
    const set = readFixture("hono-zod");
    expect(set).toEqual({
      ok: true,
      value: {
        ecosystem: "npm",
        lockfile: "package-lock.json",
        packages: [
          {
            ecosystem: "npm",
            name: "hono",
            version: "4.13.23",
            integrity:
              "sha512-OS90dj7dcsftEEWCOef8jRbnHE5lbrOq0hNRqjSyPsOnaGZvvfof1KS05hQNb4kUOCfDq1mG3PmHoX37DMnHQg==",
            resolved: null,
            direct: true,
            dev: false,
            path: "node_modules/hono",
          },
          {
            ecosystem: "npm",
            name: "zod",
            version: "4.6.7",
            integrity:
              "sha512-g8W2D2kU6a8untc053fX1uVBKzM7yqAxW/3zwk83+6RyF2+SKOuV+c0wBDhUwzV1PaGapmZH+rmcUzPf+3CGwg==",
            resolved: null,
            direct: true,
            dev: false,
            path: "node_modules/zod",
          },
        ],
      },
    });
  });

  it("reads a lockfileVersion 2 lock with resolved registry URLs", () => {
    const set = readFixture("hono-zod-v2");
    if (!set.ok) throw new Error(set.error.map(describeDependencyRefusal).join("\n"));
    expect(set.value.packages.map((p) => p.resolved)).toEqual([
      "https://registry.npmjs.org/hono/-/hono-4.13.23.tgz",
      "https://registry.npmjs.org/zod/-/zod-4.6.7.tgz",
    ]);
  });

  it("reads nested node_modules, a scoped package and a dev-only package", () => {
    const set = readFixture("nested");
    if (!set.ok) throw new Error(set.error.map(describeDependencyRefusal).join("\n"));
    const byPath = new Map(set.value.packages.map((p) => [p.path, p]));
    expect(set.value.packages).toHaveLength(12);
    expect(byPath.get("node_modules/debug/node_modules/ms")).toMatchObject({
      name: "ms",
      version: "2.0.0",
      direct: false,
      dev: false,
    });
    expect(byPath.get("node_modules/ms")).toMatchObject({ version: "2.1.3", direct: true });
    expect(byPath.get("node_modules/@hono/node-server")).toMatchObject({
      name: "@hono/node-server",
      direct: true,
      resolved: "https://registry.npmjs.org/@hono/node-server/-/node-server-1.19.19.tgz",
    });
    expect(byPath.get("node_modules/@types/semver")).toMatchObject({ dev: true, direct: true });
    expect(byPath.get("node_modules/color-name")).toMatchObject({ direct: false, dev: false });
    expect([...byPath.keys()]).toEqual([...byPath.keys()].sort());
  });

  it("reads peer and optional dependencies and a same-name npm: alias", () => {
    const set = readFixture("peer-optional");
    if (!set.ok) throw new Error(set.error.map(describeDependencyRefusal).join("\n"));
    expect(set.value.packages.map((p) => [p.name, p.direct])).toEqual([
      ["@hono/node-server", true],
      ["has-flag", true],
      ["hono", true],
      ["ms", true],
    ]);
  });

  it("refuses a file: dependency (a link) and accepts the alias beside it", () => {
    const refusals = refusalsOf(readFixture("alias-file"));
    expect(refusals.map((r) => [r.rule, r.package])).toEqual([
      ["non-registry-source", "local-thing"],
      ["non-registry-source", "local-thing"],
      ["non-registry-source", "local-thing"],
    ]);
    expect(refusals.map((r) => r.detail).join("\n")).toMatch(/outside node_modules/);
    expect(refusals.map((r) => r.detail).join("\n")).toMatch(/is a link to "local"/);
    expect(refusals.map((r) => r.detail).join("\n")).toMatch(/"file:.\/local": a local file/);
  });
});

describe("the lock against its manifest", () => {
  it("reads a project with no dependencies as an empty set", () => {
    expect(read(npmProject({}, {}))).toEqual({
      ok: true,
      value: { ecosystem: "npm", lockfile: "package-lock.json", packages: [] },
    });
  });

  it("refuses a manifest range the lock's root does not record", () => {
    const p = npmProject({ hono: "^4.0.0" }, { "node_modules/hono": entry("hono", "4.1.0") });
    const manifest = p.manifest.replace('"^4.0.0"', '"^4.1.0"');
    const r = only(refusalsOf(readNpmLock(manifest, p.lock)), "lock-mismatch");
    expect(r).toMatchObject({ package: "hono", file: "package-lock.json" });
    expect(r.detail).toMatch(/asks "\^4.1.0" and the lock's root records "\^4.0.0"/);
  });

  it("refuses a dependency the lock's root lacks, and one only the root has", () => {
    const p = npmProject({ hono: "^4.0.0" }, { "node_modules/hono": entry("hono", "4.1.0") });
    const manifest = JSON.stringify({ name: "subject", dependencies: { zod: "^4.0.0" } });
    const refusals = refusalsOf(readNpmLock(manifest, p.lock));
    expect(refusals.filter((r) => r.rule === "lock-mismatch").map((r) => r.package)).toEqual([
      "zod",
      "hono",
    ]);
  });

  it("refuses a devDependency recorded as a dependency in the lock", () => {
    const p = npmProject(
      {},
      { "node_modules/vitest": entry("vitest", "4.0.0", { dev: true }) },
      {
        devDependencies: { vitest: "4.0.0" },
        root: { dependencies: { vitest: "4.0.0" }, devDependencies: {} },
      },
    );
    const refusals = refusalsOf(read(p));
    expect(refusals.map((r) => [r.rule, r.package])).toEqual([
      ["lock-mismatch", "vitest"],
      ["lock-mismatch", "vitest"],
    ]);
  });

  it("refuses a direct dependency missing from node_modules", () => {
    const p = npmProject({ hono: "^4.0.0" }, {});
    const r = only(refusalsOf(read(p)), "missing-direct-dependency");
    expect(r.package).toBe("hono");
    expect(r.detail).toMatch(/no node_modules\/hono/);
  });

  it("refuses a direct dependency found only nested", () => {
    const p = npmProject(
      { hono: "^4.0.0" },
      { "node_modules/x/node_modules/hono": entry("hono", "4.1.0") },
    );
    expect(only(refusalsOf(read(p)), "missing-direct-dependency").package).toBe("hono");
  });

  it("refuses a locked version the manifest's range does not accept", () => {
    const p = npmProject({ hono: "^4.0.0" }, { "node_modules/hono": entry("hono", "3.9.0") });
    const r = only(refusalsOf(read(p)), "unsatisfied-range");
    expect(r.package).toBe("hono");
    expect(r.detail).toMatch(/pins hono@3.9.0, which .* range "\^4.0.0" does not accept/);
  });

  it("refuses a dist-tag in the manifest, which no lock can be checked against", () => {
    const p = npmProject({ hono: "latest" }, { "node_modules/hono": entry("hono", "4.1.0") });
    const r = only(refusalsOf(read(p)), "unsatisfied-range");
    expect(r).toMatchObject({ package: "hono", file: "package.json" });
  });

  it("accepts an exact pin, a caret, a tilde, an x-range and a hyphen range", () => {
    for (const range of ["4.1.0", "^4.0.0", "~4.1.0", "4.x", "4.0.0 - 4.2.0", "*", ">=4 <5"]) {
      const p = npmProject({ hono: range }, { "node_modules/hono": entry("hono", "4.1.0") });
      expect(read(p).ok, range).toBe(true);
    }
  });

  it("refuses an npm: alias whose lock entry installs another package", () => {
    const p = npmProject(
      { tiny: "npm:ms@^2.0.0" },
      { "node_modules/tiny": entry("hono", "2.1.0", { name: "hono" }) },
    );
    const r = only(refusalsOf(read(p)), "unsatisfied-range");
    expect(r.detail).toMatch(/asks for ms and the lock installs hono as tiny/);
  });

  it("accepts an npm: alias of a scoped package and names the real package", () => {
    const p = npmProject(
      { server: "npm:@hono/node-server@^1.0.0" },
      {
        "node_modules/server": entry("@hono/node-server", "1.19.19", {
          name: "@hono/node-server",
        }),
      },
    );
    const set = read(p);
    if (!set.ok) throw new Error(set.error.map(describeDependencyRefusal).join("\n"));
    expect(set.value.packages[0]).toMatchObject({
      name: "@hono/node-server",
      path: "node_modules/server",
      direct: true,
    });
  });
});

describe("where packages come from", () => {
  const withEntry = (extra: Record<string, unknown>, name = "hono", version = "4.1.0") =>
    npmProject({ [name]: version }, { [`node_modules/${name}`]: entry(name, version, extra) });

  it.each([
    ["a git URL", "git+https://github.com/honojs/hono.git#abc", /a git repository/],
    ["a github: shorthand", "github:honojs/hono#abc", /a git repository/],
    ["a file: tarball", "file:../hono-4.1.0.tgz", /a local file or folder/],
    ["a plain-http tarball", "http://registry.npmjs.org/hono/-/hono-4.1.0.tgz", /a tarball URL/],
    ["another registry", "https://registry.evil.test/hono/-/hono-4.1.0.tgz", /not the registry/],
    ["a look-alike host", "https://registry.npmjs.org.evil.test/hono/-/hono-4.1.0.tgz", /not the/],
    [
      "another package's tarball on the registry",
      "https://registry.npmjs.org/evil/-/evil-4.1.0.tgz",
      /not the canonical tarball of hono@4.1.0/,
    ],
    [
      "another version's tarball",
      "https://registry.npmjs.org/hono/-/hono-4.0.0.tgz",
      /not the canonical tarball/,
    ],
    [
      "a query string",
      "https://registry.npmjs.org/hono/-/hono-4.1.0.tgz?x=1",
      /not the canonical tarball/,
    ],
    [
      "dot segments",
      "https://registry.npmjs.org/evil/../hono/-/hono-4.1.0.tgz",
      /not the canonical tarball/,
    ],
    ["credentials", "https://user:pw@registry.npmjs.org/hono/-/hono-4.1.0.tgz", /not the registry/],
  ])("refuses %s as resolved", (_what, resolved, detail) => {
    const r = only(refusalsOf(read(withEntry({ resolved }))), "non-registry-source");
    expect(r.package).toBe("hono");
    expect(r.detail).toMatch(detail);
  });

  it("refuses a link: true entry", () => {
    const p = withEntry({ link: true, resolved: "../elsewhere" });
    const refusals = refusalsOf(read(p));
    expect(refusals.some((r) => r.rule === "non-registry-source" && r.package === "hono")).toBe(
      true,
    );
  });

  it("refuses a manifest spec that is a git URL, a path or owner/repo", () => {
    for (const spec of ["git+https://x.test/a.git", "file:./local", "honojs/hono", "./hono"]) {
      const p = npmProject({ hono: spec }, { "node_modules/hono": entry("hono", "4.1.0") });
      const refusals = refusalsOf(read(p));
      const r = refusals.find((x) => x.file === "package.json");
      expect(r, spec).toMatchObject({ rule: "non-registry-source", package: "hono" });
    }
  });

  it("accepts the canonical scoped tarball and refuses a percent-encoded one", () => {
    const name = "@types/node";
    const ok = npmProject(
      { [name]: "22.0.0" },
      { [`node_modules/${name}`]: entry(name, "22.0.0") },
    );
    expect(read(ok).ok).toBe(true);
    const encoded = npmProject(
      { [name]: "22.0.0" },
      {
        [`node_modules/${name}`]: entry(name, "22.0.0", {
          resolved: "https://registry.npmjs.org/@types%2fnode/-/node-22.0.0.tgz",
        }),
      },
    );
    expect(only(refusalsOf(read(encoded)), "non-registry-source").package).toBe(name);
  });

  it("accepts another registry the policy names, with or without its trailing slash", () => {
    const resolved = "https://npm.mirror.test/base/hono/-/hono-4.1.0.tgz";
    const p = withEntry({ resolved });
    expect(read(p).ok).toBe(false);
    for (const base of ["https://npm.mirror.test/base/", "https://npm.mirror.test/base"]) {
      expect(read(p, policyWith({ registries: { npm: [base], PyPI: [] } })).ok).toBe(true);
    }
  });

  it("refuses a workspace folder entry outside node_modules", () => {
    const p = npmProject({}, { "packages/inner": { name: "inner", version: "1.0.0" } });
    const r = only(refusalsOf(read(p)), "non-registry-source");
    expect(r).toMatchObject({ package: "inner" });
    expect(r.detail).toMatch(/outside node_modules/);
  });
});

describe("integrity", () => {
  const withIntegrity = (integrity: unknown, extra: Record<string, unknown> = {}) =>
    npmProject(
      { hono: "4.1.0" },
      { "node_modules/hono": { ...entry("hono", "4.1.0"), integrity, ...extra } },
    );

  it("refuses an entry with no integrity", () => {
    const r = only(refusalsOf(read(withIntegrity(undefined))), "missing-integrity");
    expect(r.package).toBe("hono");
  });

  it("says a bundled dependency has no integrity of its own", () => {
    const r = only(
      refusalsOf(read(withIntegrity(undefined, { inBundle: true }))),
      "missing-integrity",
    );
    expect(r.detail).toMatch(/bundled inside its parent's tarball/);
  });

  it("refuses a sha1-only integrity and a malformed sha512", () => {
    for (const integrity of [
      "sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk=",
      "sha512-tooshort==",
      `sha256-${"A".repeat(43)}=`,
    ]) {
      const r = only(refusalsOf(read(withIntegrity(integrity))), "weak-integrity");
      expect(r.package, integrity).toBe("hono");
    }
  });

  it("accepts a sha512 beside a weaker hash", () => {
    expect(read(withIntegrity(`sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk= ${sri("x")}`)).ok).toBe(true);
  });

  it("refuses an integrity that is not a string, without reading it as one", () => {
    const r = only(refusalsOf(read(withIntegrity({ toString: 1 }))), "unreadable");
    expect(r.package).toBe("hono");
  });
});

describe("names and versions", () => {
  it.each([
    ["a name with spaces", "bad name"],
    ["a name starting with a dot", ".hidden"],
    ["a name starting with an underscore", "_private"],
    ["node_modules itself", "node_modules"],
    ["a name with a slash outside a scope", "a/b"],
    ["a name with a colon", "a:b"],
  ])("refuses %s", (_what, name) => {
    const p = npmProject({}, { [`node_modules/x`]: entry(name, "1.0.0", { name }) });
    const refusals = refusalsOf(read(p));
    expect(refusals.find((r) => r.rule === "invalid-name")?.package).toBe(name);
  });

  it("accepts an old-style capitalized name the registry still serves", () => {
    const p = npmProject(
      { JSONStream: "1.3.5" },
      { "node_modules/JSONStream": entry("JSONStream", "1.3.5") },
    );
    expect(read(p).ok).toBe(true);
  });

  it.each(["^1.0.0", "1.0", "v1.0.0", "1.0.0 || 2.0.0", "latest", "01.0.0", ""])(
    "refuses the version %j as not exact",
    (version) => {
      const p = npmProject({}, { "node_modules/hono": { ...entry("hono", "1.0.0"), version } });
      expect(only(refusalsOf(read(p)), "inexact-version").package).toBe("hono");
    },
  );

  it("refuses an entry with no version", () => {
    const { version: _, ...noVersion } = entry("hono", "1.0.0");
    const p = npmProject({}, { "node_modules/hono": noVersion });
    expect(only(refusalsOf(read(p)), "inexact-version").detail).toMatch(/has no version/);
  });

  it("accepts prerelease and build-metadata versions", () => {
    for (const version of ["1.0.0-beta.1", "1.0.0-rc.1+build.5", "0.0.0-20240101"]) {
      const p = npmProject({ hono: version }, { "node_modules/hono": entry("hono", version) });
      expect(read(p).ok, version).toBe(true);
    }
  });
});

describe("limits", () => {
  it("accepts exactly maxPackages and refuses one more, naming the count", () => {
    const policy = policyWith({ maxPackages: 20 });
    expect(read(manyPackages(20), policy).ok).toBe(true);
    const r = only(refusalsOf(read(manyPackages(21), policy)), "too-many-packages");
    expect(r).toMatchObject({ count: 21, limit: 20, package: null });
  });

  it("reads 2000 packages under the default byte bound", () => {
    const p = manyPackages(2000);
    const set = read(p, policyWith({ maxPackages: 2000 }));
    expect(set.ok && set.value.packages.length).toBe(2000);
  });

  it("refuses a lock over the byte bound, counting UTF-8 bytes rather than characters", () => {
    const p = npmProject({}, {});
    const padded = p.lock.replace('"requires": true', `"requires": true, "x": "${"é".repeat(60)}"`);
    const limit = new TextEncoder().encode(padded).byteLength - 1;
    expect(padded.length).toBeLessThan(limit); // in characters it would pass
    const r = only(
      refusalsOf(readNpmLock(p.manifest, padded, policyWith({ maxLockBytes: limit }))),
      "too-large",
    );
    expect(r).toMatchObject({ file: "package-lock.json", limit, bytes: limit + 1 });
  });

  it("refuses an oversized manifest before parsing anything", () => {
    const r = readNpmLock("x".repeat(101), "{", policyWith({ maxLockBytes: 100 }));
    expect(only(refusalsOf(r), "too-large").file).toBe("package.json");
  });
});

describe("unreadable and unsupported files", () => {
  it("refuses lockfileVersion 1 with the way out", () => {
    const p = npmProject({}, {}, { lockfileVersion: 1 });
    const r = only(refusalsOf(read(p)), "unsupported-lockfile");
    expect(r.detail).toMatch(/npm 7 or later/);
  });

  it.each([0, 4, "3", null])("refuses lockfileVersion %j", (lockfileVersion) => {
    const p = npmProject({}, {}, { lockfileVersion });
    expect(only(refusalsOf(read(p)), "unsupported-lockfile").package).toBeNull();
  });

  it.each([
    ["not JSON", "{"],
    ["an array", "[]"],
    ["no packages map", '{"lockfileVersion":3}'],
    ["no root entry", '{"lockfileVersion":3,"packages":{}}'],
    ["a root that is a string", '{"lockfileVersion":3,"packages":{"":"x"}}'],
  ])("refuses a lock that is %s", (_what, lock) => {
    expect(only(refusalsOf(readNpmLock("{}", lock)), "unreadable").file).toBe("package-lock.json");
  });

  it("refuses a manifest whose dependencies are not strings, naming the package", () => {
    const r = readNpmLock('{"dependencies":{"hono":4}}', npmProject({}, {}).lock);
    expect(only(refusalsOf(r), "unreadable")).toMatchObject({
      package: "hono",
      file: "package.json",
    });
  });

  it("reads a manifest with a byte-order mark", () => {
    const p = npmProject({}, {});
    expect(readNpmLock(`\uFEFF${p.manifest}`, p.lock).ok).toBe(true);
  });

  it("treats __proto__ keys as plain names", () => {
    const lock = npmProject({}, {}).lock.replace(
      '"packages": {',
      '"packages": { "node_modules/__proto__": {"version":"1.0.0"},',
    );
    const refusals = refusalsOf(readNpmLock("{}", lock));
    expect(refusals.some((r) => r.package === "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).version).toBeUndefined();
  });
});

describe("parseLockKey", () => {
  it("names every install along a key, scoped ones whole", () => {
    expect(parseLockKey("node_modules/a")).toEqual(["a"]);
    expect(parseLockKey("node_modules/a/node_modules/@s/b")).toEqual(["a", "@s/b"]);
    expect(parseLockKey("node_modules/@s/b/node_modules/c")).toEqual(["@s/b", "c"]);
  });

  it("refuses keys that are not node_modules paths", () => {
    for (const key of [
      "packages/a",
      "node_modules/",
      "node_modules/@s",
      "node_modules/a/b",
      "x/node_modules/a",
    ])
      expect(parseLockKey(key), key).toBeNull();
  });
});

describe("typosquats in a lock", () => {
  it("refuses a typosquat-shaped name, naming the popular one", () => {
    const p = npmProject(
      { expresss: "4.0.0" },
      { "node_modules/expresss": entry("expresss", "4.0.0") },
    );
    const r = only(refusalsOf(read(p)), "typosquat");
    expect(r).toMatchObject({ package: "expresss", resembles: "express" });
    expect(describeDependencyRefusal(r)).toBe(
      "typosquat package-lock.json expresss: expresss is one slip away from the popular package express: if it is what you mean, ask the challenge's author to add it to dependencies.allowNames",
    );
  });

  it("checks an alias's real name, not the folder it installs under", () => {
    const p = npmProject(
      { semvr: "npm:semver@7.0.0" },
      { "node_modules/semvr": entry("semver", "7.0.0", { name: "semver" }) },
    );
    expect(read(p).ok).toBe(true);
  });

  it("refuses a typosquat hidden behind an alias", () => {
    const p = npmProject(
      { express: "npm:expresss@4.0.0" },
      { "node_modules/express": entry("expresss", "4.0.0", { name: "expresss" }) },
    );
    expect(only(refusalsOf(read(p)), "typosquat").package).toBe("expresss");
  });

  it("accepts a name on the challenge's allowlist", () => {
    const p = npmProject(
      { expresss: "4.0.0" },
      { "node_modules/expresss": entry("expresss", "4.0.0") },
    );
    expect(read(p, policyWith({ allowNames: ["expresss"] })).ok).toBe(true);
  });
});
