/**
 * @module runner/run/bridge-files
 * Writes the bridge module that stands where the submission's module would be in the trusted
 * workspace (docs/subject-protocol.md). Invariants: the file is written by the host from the
 * subject's reported export names, which are checked as plain identifiers (anything else is
 * left out); it holds no submission code, only calls into the harness's bridge.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { InterfaceSpec, Runtime } from "@bouts/contracts";

const JS_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]{0,99}$/;
const PY_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;
const JS_RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof new null return super switch this throw " +
    "true try typeof var void while with yield let static implements interface package private " +
    "protected public await arguments eval"
  ).split(" "),
);
const MAX_EXPORTS = 200;

/** The descriptor the bridge is built from: the subject's exports plus the interface's names. */
export function buildBridgeDescriptor(
  reported: Record<string, unknown> | null,
  iface: InterfaceSpec,
  runtime: Runtime,
): Record<string, unknown> {
  const valid = runtime === "node22" ? JS_IDENTIFIER : PY_IDENTIFIER;
  const out: Record<string, unknown> = {};
  for (const [name, desc] of Object.entries(reported ?? {}).slice(0, MAX_EXPORTS)) {
    if (valid.test(name) || (runtime === "node22" && name === "default")) out[name] = desc;
  }
  // Names the challenge declares are always importable; a missing one fails when called.
  const declared = iface.kind === "module" ? iface.functions.map((f) => f.name) : [iface.factory];
  for (const name of declared) out[name] ??= { kind: "function" };
  return out;
}

/** Writes the bridge for `iface.module` into the trusted workspace. */
export function writeBridgeModule(
  trustedDir: string,
  runtime: Runtime,
  iface: InterfaceSpec,
  descriptor: Record<string, unknown>,
): void {
  const target = path.join(trustedDir, iface.module);
  mkdirSync(path.dirname(target), { recursive: true });
  const factories = iface.kind === "http" ? [iface.factory] : [];
  const json = JSON.stringify(descriptor);
  if (runtime === "node22") {
    const lines = [
      "// Written by the runner: the submission's module, bridged to the subject process.",
      'import { createModuleBridge } from "/opt/bouts/harness/bridge.mjs";',
      `const m = createModuleBridge(${JSON.stringify(iface.module)}, ${json}, { factories: ${JSON.stringify(factories)} });`,
    ];
    for (const name of Object.keys(descriptor)) {
      if (name === "default") lines.push("export default m.default;");
      else if (!JS_RESERVED.has(name))
        lines.push(`export const ${name} = m[${JSON.stringify(name)}];`);
    }
    writeFileSync(target, `${lines.join("\n")}\n`);
    return;
  }
  // A JSON string literal is a valid Python string literal.
  writeFileSync(
    target,
    [
      '"""Written by the runner: the submission\'s module, bridged to the subject process."""',
      "import json as _json",
      "from bouts_bridge import install as _install",
      "",
      `_install(${JSON.stringify(path.posix.basename(iface.module, ".py"))}, _json.loads(${JSON.stringify(json)}), globals())`,
      "",
    ].join("\n"),
  );
}
