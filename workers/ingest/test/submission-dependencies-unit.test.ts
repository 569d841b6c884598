/**
 * The dependency files a submission's archive is searched for while it streams
 * (src/submission-dependencies.ts): only at the root or the root of one top-level folder,
 * each held up to the bound + 1 byte while its whole size is counted; and the challenge's
 * stored `dependencies` read with today's defaults.
 */
import { describe, expect, it } from "vitest";
import type { ArchiveSink } from "@bouts/archive";
import {
  createDependencyCatcher,
  parseStoredDependencies,
  policyOf,
} from "../src/submission-dependencies.ts";

const enc = new TextEncoder();

/** Feeds files to a sink as the archive reader does: open, write in chunks, close. */
async function feed(sink: ArchiveSink, files: Record<string, string>, chunk = 3) {
  for (const [path, text] of Object.entries(files)) {
    const file = await sink.openFile({ path, kind: "file", executable: false });
    const bytes = enc.encode(text);
    for (let at = 0; at < bytes.length; at += chunk)
      await file.write(bytes.subarray(at, at + chunk));
    await file.close();
  }
}

const texts = (found: { path: string; bytes: Uint8Array; size: number }[]) =>
  found.map((f) => [f.path, new TextDecoder().decode(f.bytes), f.size]);

describe("createDependencyCatcher", () => {
  it("catches the root's dependency files and nothing deeper", async () => {
    const catcher = createDependencyCatcher();
    await feed(catcher.sink, {
      "package.json": "{}",
      "uv.lock": "version = 1",
      "src/package.json": "{nested}",
      "a/b/requirements.txt": "x==1",
      "README.md": "not a dependency file",
    });
    expect(texts(catcher.filesAt(""))).toEqual([
      ["package.json", "{}", 2],
      ["uv.lock", "version = 1", 11],
    ]);
  });

  it("catches them in the one top-level folder, by the wrapper admission finds", async () => {
    const catcher = createDependencyCatcher();
    await feed(catcher.sink, { "sol/app.mjs": "x", "sol/package-lock.json": "{}" });
    expect(texts(catcher.filesAt("sol/"))).toEqual([["package-lock.json", "{}", 2]]);
  });

  it("drops the files one folder down once a second top-level folder shows there is no wrapper", async () => {
    const catcher = createDependencyCatcher();
    await feed(catcher.sink, {
      "a/package.json": "{}",
      "b/package.json": "{}",
      "c/requirements.txt": "x==1",
    });
    expect(catcher.filesAt("a/")).toEqual([]);
    expect(catcher.filesAt("b/")).toEqual([]);
    expect(catcher.filesAt("c/")).toEqual([]);
  });

  it("keeps at most the bound + 1 bytes of a file and counts the whole of it", async () => {
    const catcher = createDependencyCatcher(10);
    await feed(catcher.sink, { "requirements.txt": "x".repeat(100) }, 7);
    const [file] = catcher.filesAt("");
    expect(file?.bytes.byteLength).toBe(11);
    expect(file?.size).toBe(100);
  });
});

describe("the challenge's stored dependencies", () => {
  it("fills today's defaults into a manifest stored before submissions existed", () => {
    expect(parseStoredDependencies('{"lockfile":null}').submissions).toEqual({
      allowed: false,
      maxPackages: 200,
      maxInstalledBytes: 64 * 1024 * 1024,
      maxInstallMs: 120_000,
    });
  });

  it("allows nothing when there is no bundle or the stored value does not parse", () => {
    for (const stored of [null, "{", '{"submissions":{"allowed":"yes"}}']) {
      expect(parseStoredDependencies(stored).submissions.allowed, String(stored)).toBe(false);
    }
  });

  it("holds a Node challenge to npm and a Python one to PyPI, with its own bounds", () => {
    const deps = parseStoredDependencies(
      '{"lockfile":null,"submissions":{"allowed":true,"maxPackages":7},"allowNames":["expresss"]}',
    );
    expect(policyOf(deps, "node22")).toMatchObject({
      maxPackages: 7,
      allowNames: ["expresss"],
      ecosystems: ["npm"],
    });
    expect(policyOf(deps, "python3.11").ecosystems).toEqual(["PyPI"]);
    expect(policyOf(deps, null).ecosystems).toBeUndefined();
  });
});
