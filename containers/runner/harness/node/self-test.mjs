// Isolation probe run inside the sandbox at runner start-up. Prints one JSON object with what it
// could and could not do; the host decides whether that proves isolation.
// argv: <host loopback port> <host path that must be invisible> <canary env var name>
import fs from "node:fs";
import process from "node:process";
import net from "node:net";
import { setTimeout } from "node:timers";
import { emit } from "./channel.mjs";

const [port, hostPath, canary] = process.argv.slice(2);

function tryConnect(host, p) {
  return new Promise((resolve) => {
    const s = net.connect({ host, port: Number(p) });
    const done = (ok) => {
      s.destroy();
      resolve(ok);
    };
    s.on("connect", () => done(true));
    s.on("error", () => done(false));
    setTimeout(() => done(false), 1500);
  });
}
function canWrite(p) {
  try {
    fs.writeFileSync(p, "x");
    return true;
  } catch {
    return false;
  }
}
const status = fs.readFileSync("/proc/self/status", "utf8");
const limits = fs.readFileSync("/proc/self/limits", "utf8");
emit({
  k: "self-test",
  uid: process.getuid(),
  uidMap: fs.readFileSync("/proc/self/uid_map", "utf8").trim(),
  capEff: /CapEff:\s*(\w+)/.exec(status)?.[1] ?? null,
  pid: process.pid,
  visiblePids: fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n)).length,
  writeUsr: canWrite("/usr/bouts-self-test"),
  writeWork: canWrite("/work/bouts-self-test"),
  writeTmp: canWrite("/tmp/bouts-self-test"),
  hostLoopback: await tryConnect("127.0.0.1", port),
  external: await tryConnect("1.1.1.1", 53),
  hostPathVisible: fs.existsSync(hostPath),
  secretsVisible: ["/root", "/home", "/etc/shadow", "/etc/passwd"].filter((p) => fs.existsSync(p)),
  envKeys: Object.keys(process.env),
  canarySeen: canary in process.env,
  maxProcesses: /Max processes\s+(\d+)/.exec(limits)?.[1] ?? null,
});
