import { execFile, fork, spawn } from "node:child_process";
import cluster from "node:cluster";
import { readFileSync } from "node:fs";
import Module, { createRequire, register } from "node:module";
import vm from "node:vm";
import { Worker } from "node:worker_threads";
// ruleid: bouts.js.dynamic-code.import-file
import { helper } from "./helper.js";
// ruleid: bouts.js.dynamic-code.import-file
import payload from "./payload.txt";
// ok: bouts.js.dynamic-code.import-file
import express from "express";
// A URL scheme other than node:/file: loads code that is not in the submission.
// ruleid: bouts.js.dynamic-code.import-file
export { createApp } from "data:text/javascript;base64,ZXhwb3J0IHt9";

export async function hidden(name: string, code: string, bytes: Buffer): Promise<unknown> {
  // ruleid: bouts.js.dynamic-code.eval
  eval(readFileSync("payload.txt", "utf8"));
  // ruleid: bouts.js.dynamic-code.eval
  globalThis.eval(code);
  // ok: bouts.js.dynamic-code.eval
  eval("1 + 1");
  // ruleid: bouts.js.dynamic-code.function-constructor
  const f = new Function("req", code);
  // ruleid: bouts.js.dynamic-code.function-constructor
  Function(code)();
  // ok: bouts.js.dynamic-code.function-constructor
  const g = new Function("a", "b", "return a + b");
  // ruleid: bouts.js.dynamic-code.function-constructor
  [].constructor.constructor(code)();
  // ruleid: bouts.js.dynamic-code.function-constructor-reference
  const e = eval;
  e(code);
  // ruleid: bouts.js.dynamic-code.function-constructor-reference
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  // ruleid: bouts.js.dynamic-code.function-constructor-reference
  (0, globalThis[name])(code);
  // ruleid: bouts.js.dynamic-code.function-constructor-reference
  const r = require;
  // ok: bouts.js.dynamic-code.function-constructor-reference
  if (typeof require !== "undefined" && require.main === module) console.log(f instanceof Function);
  // ok: bouts.js.dynamic-code.function-constructor-reference
  Function.prototype.call.call(g, null);
  // ruleid: bouts.js.dynamic-code.vm
  vm.runInNewContext(code, {});
  // ruleid: bouts.js.dynamic-code.vm
  new vm.Script(readFileSync(name, "utf8")).runInThisContext();
  // ok: bouts.js.dynamic-code.vm
  vm.runInNewContext("a + b", { a: 1, b: 2 });
  // ruleid: bouts.js.dynamic-code.non-literal-module
  const plugin = require(name);
  // ruleid: bouts.js.dynamic-code.non-literal-module
  await import(`./plugins/${name}.js`);
  const req = createRequire(import.meta.url);
  // ruleid: bouts.js.dynamic-code.non-literal-module
  req(name);
  // ruleid: bouts.js.dynamic-code.non-literal-module
  createRequire(import.meta.url)(name);
  // A literal relative specifier is resolved by the runner; "./lib/x.js" is then scanned.
  // ruleid: bouts.js.dynamic-code.require-file
  const lib = require("./lib/x.js");
  // ok: bouts.js.dynamic-code.non-literal-module
  const { Router } = require("express");
  // ruleid: bouts.js.dynamic-code.require-file
  req("./data/payload.txt");
  // ruleid: bouts.js.dynamic-code.require-file
  require("./lib");
  // ok: bouts.js.dynamic-code.require-file
  require("express");
  // ruleid: bouts.js.dynamic-code.require-file
  require("https://example.com/x.js");
  // ruleid: bouts.js.dynamic-code.require-file
  fork("./worker.js");
  // ruleid: bouts.js.dynamic-code.non-literal-module
  fork(name);
  // ok: bouts.js.dynamic-code.non-literal-module
  cluster.fork({ ROLE: name });
  // ruleid: bouts.js.dynamic-code.worker-eval, bouts.js.dynamic-code.non-literal-module
  new Worker(code, { eval: true });
  // ruleid: bouts.js.dynamic-code.require-file
  new Worker(new URL("./worker.js", import.meta.url));
  // ruleid: bouts.js.dynamic-code.module-internals
  module.constructor._load(name);
  // ruleid: bouts.js.dynamic-code.module-internals
  Module._load(name, null, false);
  // ruleid: bouts.js.dynamic-code.module-internals
  process.binding("fs");
  // ruleid: bouts.js.dynamic-code.module-internals
  process.dlopen(module, name);
  // ruleid: bouts.js.dynamic-code.module-internals
  register("./hooks.mjs", import.meta.url);
  // ruleid: bouts.js.dynamic-code.webassembly
  await WebAssembly.instantiate(bytes, {});
  // ok: bouts.js.dynamic-code.webassembly
  WebAssembly.validate(bytes);
  // ruleid: bouts.js.dynamic-code.child-node-eval
  spawn(process.execPath, ["-e", code]);
  // ruleid: bouts.js.dynamic-code.child-node-eval
  execFile("node", ["--eval", readFileSync("p.txt", "utf8")], () => undefined);
  // ok: bouts.js.dynamic-code.child-node-eval
  spawn(process.execPath, ["-e", "console.log(1)"]);
  // ok: bouts.js.dynamic-code.child-node-eval
  spawn("ls", ["-l", name]);
  return [plugin, lib, Router, payload, helper, express, AsyncFunction, r];
}

export function notCode(db: { eval: (s: string) => void }, re: RegExp, text: string): void {
  // ok: bouts.js.dynamic-code.eval
  JSON.parse(text);
  // ok: bouts.js.dynamic-code.function-constructor
  re.exec(text);
  // ok: bouts.js.dynamic-code.function-constructor-reference
  const window = { title: text };
  console.log(window.title, db);
}
