// Hostile: registers its own tests with the hidden tests' names so fake passes get reported,
// floods stdout, and spawns a detached process meant to outlive the run.
import { test } from "node:test";
import { spawn } from "node:child_process";

for (const name of [
  "merges nested objects",
  "later sources win on conflicts",
  "does not pollute Object.prototype via __proto__",
]) {
  test(name, () => {});
}
try {
  const child = spawn("/bin/sh", ["-c", "sleep 600"], { detached: true, stdio: "ignore" });
  child.unref();
} catch {}

export function deepMerge() {
  return {};
}
