/**
 * @module runner/run/bridge-files
 * Writes the bridge module that stands where the submission's module would be in the trusted
 * workspace (docs/subject-protocol.md). Invariants: the file is written by the host from the
 * subject's reported export names, which are checked as plain identifiers (anything else is
 * left out); its own bindings never share a name with an export, so no export can break it; it
 * holds no submission code, only calls into the harness's bridge.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { InterfaceSpec, Runtime } from "@bouts/contracts";

const JS_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]{0,99}$/;
const PY_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;
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
    // Python's dunder names (`__builtins__`, `__name__`, …) are the module's own machinery:
    // a stand-in there would break the bridge module itself.
    if (runtime === "python3.11" && /^__.*__$/.test(name)) continue;
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
    // The module's own bindings get names no export has, so no export name can collide with
    // them (an export named `m` once made the bridge a SyntaxError). Exports are written as
    // `export { local as name }`: any identifier, reserved words included, is a valid name there.
    const taken = new Set(Object.keys(descriptor));
    const fresh = (base: string): string => {
      let n = base;
      for (let i = 1; taken.has(n); i += 1) n = `${base}${i}`;
      taken.add(n);
      return n;
    };
    const create = fresh("$boutsCreateModuleBridge");
    const mod = fresh("$boutsModule");
    const lines = [
      "// Written by the runner: the submission's module, bridged to the subject process.",
      `import { createModuleBridge as ${create} } from "/opt/bouts/harness/bridge.mjs";`,
      `const ${mod} = ${create}(${JSON.stringify(iface.module)}, ${json}, { factories: ${JSON.stringify(factories)} });`,
    ];
    for (const name of Object.keys(descriptor)) {
      const local = fresh(`$boutsExport_${name}`);
      lines.push(`const ${local} = ${mod}[${JSON.stringify(name)}];`);
      lines.push(`export { ${local} as ${name} };`);
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
