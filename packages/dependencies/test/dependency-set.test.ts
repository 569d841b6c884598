import { describe, expect, it } from "vitest";
import {
  decodeDependencyFile,
  findDeclaredDependencies,
  readDependencySet,
  readPythonLock,
  type DependencyFile,
} from "../src/index.ts";
import {
  entry,
  fixture,
  npmProject,
  only,
  pinned,
  policyWith,
  refusalsOf,
  uvLock,
  uvPackage,
} from "./support.ts";

const honoZod = (): DependencyFile[] => [
  { path: "package.json", text: fixture("npm/hono-zod/package.json") },
  { path: "package-lock.json", text: fixture("npm/hono-zod/package-lock.json") },
];
const NO_DEPS = '{ "name": "x", "private": true, "type": "module" }';

describe("readDependencySet", () => {
  it("reads package-lock.json with its package.json", () => {
    const set = readDependencySet(honoZod());
    expect(set.ok && set.value?.packages.map((p) => p.name)).toEqual(["hono", "zod"]);
  });

  it("reads requirements.txt and uv.lock alone", () => {
    const req = readDependencySet([
      { path: "requirements.txt", text: fixture("python/requirements.txt") },
    ]);
    expect(req.ok && req.value?.lockfile).toBe("requirements.txt");
    const uv = readDependencySet([{ path: "uv.lock", text: fixture("python/uv.lock") }]);
    expect(uv.ok && uv.value?.lockfile).toBe("uv.lock");
  });

  it("answers null for a folder that declares no dependency", () => {
    expect(readDependencySet([])).toEqual({ ok: true, value: null });
    expect(readDependencySet([{ path: "app.mjs", text: "export {}" }])).toEqual({
      ok: true,
      value: null,
    });
    expect(readDependencySet([{ path: "package.json", text: NO_DEPS }])).toEqual({
      ok: true,
      value: null,
    });
    const empty = npmProject({}, {});
    expect(
      readDependencySet([
        { path: "package.json", text: empty.manifest },
        { path: "package-lock.json", text: empty.lock },
      ]),
    ).toEqual({ ok: true, value: null });
    expect(readDependencySet([{ path: "requirements.txt", text: "# none\n" }])).toEqual({
      ok: true,
      value: null,
    });
  });

  it("reads only the folder's root: a nested lockfile is not this folder's", () => {
    expect(readDependencySet([{ path: "sub/package-lock.json", text: "not read" }])).toEqual({
      ok: true,
      value: null,
    });
  });

  it("refuses a package.json that declares dependencies without its lock", () => {
    const r = only(
      refusalsOf(
        readDependencySet([{ path: "package.json", text: fixture("npm/nested/package.json") }]),
      ),
      "missing-lockfile",
    );
    expect(r.file).toBe("package.json");
    expect(r.detail).toMatch(/declares @hono\/node-server, chalk, debug, hono, ms and 1 more/);
  });

  it("refuses a lock without its package.json", () => {
    const files = honoZod().filter((f) => f.path !== "package.json");
    expect(only(refusalsOf(readDependencySet(files)), "missing-manifest").file).toBe(
      "package-lock.json",
    );
  });

  it("refuses two kinds of lockfile at once", () => {
    const files = [...honoZod(), { path: "requirements.txt", text: pinned("requests", "2.32.3") }];
    const r = only(refusalsOf(readDependencySet(files)), "conflicting-lockfiles");
    expect(r.detail).toMatch(/package-lock.json and requirements.txt are both present/);
    const python = [
      { path: "requirements.txt", text: pinned("requests", "2.32.3") },
      { path: "uv.lock", text: uvLock([], []) },
    ];
    expect(only(refusalsOf(readDependencySet(python)), "conflicting-lockfiles")).toBeTruthy();
  });

  it("refuses npm-shrinkwrap.json, which npm would install from instead", () => {
    const files = [...honoZod(), { path: "npm-shrinkwrap.json", text: "{}" }];
    expect(only(refusalsOf(readDependencySet(files)), "unsupported-lockfile").file).toBe(
      "npm-shrinkwrap.json",
    );
  });

  it("refuses a lockfile of an ecosystem the challenge does not take", () => {
    const policy = policyWith({ ecosystems: ["PyPI"] });
    const r = only(refusalsOf(readDependencySet(honoZod(), policy)), "wrong-ecosystem");
    expect(r.detail).toMatch(/pins npm packages; this challenge takes PyPI packages/);
    expect(readDependencySet(honoZod(), policyWith({ ecosystems: ["npm"] })).ok).toBe(true);
  });

  it("passes the reader's refusals on, each naming its package", () => {
    const p = npmProject(
      { expresss: "4.0.0" },
      { "node_modules/expresss": entry("expresss", "4.0.0") },
    );
    const files = [
      { path: "package.json", text: p.manifest },
      { path: "package-lock.json", text: p.lock },
    ];
    expect(refusalsOf(readDependencySet(files)).map((r) => [r.rule, r.package])).toEqual([
      ["typosquat", "expresss"],
    ]);
  });

  it("refuses any dependency file over the byte bound, even one it would not read", () => {
    const files = [{ path: "package.json", text: `{"x":"${"a".repeat(200)}"}` }];
    expect(
      only(refusalsOf(readDependencySet(files, policyWith({ maxLockBytes: 100 }))), "too-large")
        .file,
    ).toBe("package.json");
  });
});

describe("readPythonLock", () => {
  it("reads whichever of requirements.txt and uv.lock is there", () => {
    const uv = readPythonLock([
      { path: "uv.lock", text: uvLock(["idna"], [uvPackage("idna", "3.10")]) },
    ]);
    expect(uv.ok && uv.value.packages[0]).toMatchObject({ name: "idna", direct: true });
  });

  it("refuses a folder with neither", () => {
    expect(only(refusalsOf(readPythonLock([])), "missing-lockfile")).toBeTruthy();
  });
});

describe("decodeDependencyFile", () => {
  const bytes = (s: string) => new TextEncoder().encode(s);

  it("decodes UTF-8 and drops a byte-order mark", () => {
    expect(decodeDependencyFile("package.json", bytes("\uFEFF{}"), 5)).toEqual({
      ok: true,
      value: { path: "package.json", text: "{}" },
    });
  });

  it("refuses bytes that are not UTF-8", () => {
    const r = decodeDependencyFile("requirements.txt", new Uint8Array([0xff, 0xfe, 0x61, 0]), 4);
    expect(!r.ok && r.error).toMatchObject({ rule: "unreadable", file: "requirements.txt" });
  });

  it("refuses a file whose whole size is over the bound, though only a prefix was kept", () => {
    const r = decodeDependencyFile("uv.lock", bytes("version"), 5_000_000, policyWith({}));
    expect(!r.ok && r.error).toMatchObject({ rule: "too-large", bytes: 5_000_000 });
  });
});

describe("findDeclaredDependencies", () => {
  it("finds nothing in a package.json without dependencies, or one that is not JSON", () => {
    expect(findDeclaredDependencies([{ path: "package.json", text: NO_DEPS }])).toBeNull();
    expect(findDeclaredDependencies([{ path: "package.json", text: "{ nope" }])).toBeNull();
    expect(
      findDeclaredDependencies([{ path: "package.json", text: '{"dependencies":{}}' }]),
    ).toBeNull();
  });

  it("finds a package.json with any kind of dependency", () => {
    for (const field of [
      "dependencies",
      "devDependencies",
      "optionalDependencies",
      "peerDependencies",
    ]) {
      const text = JSON.stringify({ [field]: { hono: "^4" } });
      expect(findDeclaredDependencies([{ path: "package.json", text }]), field).toEqual({
        file: "package.json",
        detail: "package.json declares hono",
      });
    }
  });

  it("finds an npm lock that pins packages, but not one that pins none", () => {
    const [, lock] = honoZod();
    expect(findDeclaredDependencies([lock!])?.detail).toBe(
      "package-lock.json pins node_modules/hono, node_modules/zod",
    );
    expect(
      findDeclaredDependencies([{ path: "package-lock.json", text: npmProject({}, {}).lock }]),
    ).toBeNull();
  });

  it("finds a requirements.txt with any line, and any uv.lock", () => {
    expect(findDeclaredDependencies([{ path: "requirements.txt", text: "# only\n\n" }])).toBeNull();
    expect(
      findDeclaredDependencies([{ path: "requirements.txt", text: "-r other.txt\n" }])?.file,
    ).toBe("requirements.txt");
    expect(findDeclaredDependencies([{ path: "uv.lock", text: "" }])?.file).toBe("uv.lock");
  });
});
