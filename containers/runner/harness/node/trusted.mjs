// Loaded with --import into every trusted test process (no submission code is ever loaded
// here). Maps `bouts:subject` to the probe API and announces each test on the host channel
// the moment it starts, so the host can hold it to its own time limit and attribute faults.
import { registerHooks } from "node:module";
import { afterEach, beforeEach } from "node:test";
import { URL } from "node:url";
import { resetPollution, takeFaults } from "./bridge.mjs";
import { emit } from "./channel.mjs";

const API = new URL("./subject-api.mjs", import.meta.url).href;

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === "bouts:subject") return { url: API, shortCircuit: true };
    return next(specifier, context);
  },
});

beforeEach((t) => {
  resetPollution();
  emit({ k: "start", name: t.name });
});

// A fault the bridge saw fails the test even if the test caught it (docs/subject-protocol.md).
afterEach((t) => {
  for (const f of takeFaults())
    emit({ k: "fault", name: t.name, fault: f.fault, message: String(f.message).slice(0, 2000) });
});
