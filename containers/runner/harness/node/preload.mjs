// Loaded with --import before any test or submission module. Records stability signals
// (warnings, unhandled rejections, uncaught exceptions) and attempts the sandbox blocks
// (network, environment and /proc probing) on the channel. Observation only: the sandbox, not
// this file, is what contains the code.
// First: built-ins the subject server answers with, captured before anything else runs.
import "./primordials.mjs";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import process from "node:process";
import { URL } from "node:url";
import net from "node:net";
import dns from "node:dns";
import { emit } from "./channel.mjs";
import { installLoaderGuard } from "./loader-guard.mjs";

installLoaderGuard();

process.on("warning", (w) =>
  emit({ k: "warning", name: w.name, message: String(w.message).slice(0, 300) }),
);
process.on("unhandledRejection", (reason) => {
  emit({ k: "unhandled-rejection", message: String(reason?.stack ?? reason).slice(0, 300) });
});
process.on("uncaughtExceptionMonitor", (e) => {
  emit({ k: "uncaught-exception", message: String(e?.stack ?? e).slice(0, 300) });
});

const LOOPBACK = /^(127\.|::1$|localhost$|::ffff:127\.)/;
const origConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const opts =
    typeof args[0] === "object" && args[0] !== null ? args[0] : { port: args[0], host: args[1] };
  const first = Array.isArray(opts) ? opts[0] : opts;
  if (first && !first.path) {
    const host = String(first.host ?? "localhost");
    if (!LOOPBACK.test(host)) emit({ k: "network", target: `${host}:${first.port}` });
  }
  return origConnect.apply(this, args);
};
for (const name of ["lookup", "resolve", "resolve4", "resolve6", "resolveAny", "resolveTxt"]) {
  for (const mod of [dns, dns.promises]) {
    const orig = mod[name];
    if (typeof orig !== "function") continue;
    mod[name] = function (host, ...rest) {
      if (!LOOPBACK.test(String(host))) emit({ k: "dns", host: String(host).slice(0, 200) });
      return orig.call(this, host, ...rest);
    };
  }
}

const PROBE =
  /^\/proc\/(self|\d+|thread-self)\/(environ|mem|root|maps|cmdline)|^\/proc\/1\/|^\/(root|home|etc\/shadow|var\/run|run|sys\/fs\/cgroup)(\/|$)/;
const HIDDEN_TESTS = /^\/work\/tests(\/|$)/;

// True when the nearest caller outside node internals and this harness is submission code
// (a file under /work that is not a hidden test): only then is a read of tests/ cited.
function calledFromSubmission() {
  const stack = new Error().stack?.split("\n").slice(2) ?? [];
  for (const line of stack) {
    if (line.includes("node:") || line.includes("/opt/bouts/harness/")) continue;
    const m = /(?:file:\/\/)?(\/work\/[^:)]+)/.exec(line);
    if (!m) continue;
    return !m[1].startsWith("/work/tests/");
  }
  return false;
}

function observePath(p) {
  const s = p instanceof URL ? p.pathname : typeof p === "string" ? p : null;
  if (s === null) return;
  if (PROBE.test(s)) emit({ k: "probe", path: s.slice(0, 200) });
  else if (HIDDEN_TESTS.test(s) && calledFromSubmission())
    emit({ k: "test-read", path: s.slice(0, 200) });
}

for (const name of [
  "openSync",
  "readFileSync",
  "readdirSync",
  "statSync",
  "existsSync",
  "createReadStream",
]) {
  const orig = fs[name];
  fs[name] = function (p, ...rest) {
    observePath(p);
    return orig.call(this, p, ...rest);
  };
}
for (const name of ["open", "readFile", "readdir"]) {
  const orig = fs.promises[name];
  fs.promises[name] = function (p, ...rest) {
    observePath(p);
    return orig.call(this, p, ...rest);
  };
}

// `import { readFileSync } from "node:fs"` binds the ESM export, not the CommonJS property.
syncBuiltinESMExports();
