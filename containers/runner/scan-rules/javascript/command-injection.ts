import { exec, execSync, spawn } from "node:child_process";
import * as cp from "child_process";

export function ping(host: string): void {
  // ruleid: bouts.js.command-injection.shell-with-dynamic-command
  exec("ping -c 1 " + host, () => undefined);
  // ruleid: bouts.js.command-injection.shell-with-dynamic-command
  cp.execSync(`nslookup ${host}`);
  const cmd = "dig " + host;
  // ruleid: bouts.js.command-injection.shell-with-dynamic-command
  const out = execSync(cmd);
  // ruleid: bouts.js.command-injection.shell-with-dynamic-command
  spawn(cmd, [], { shell: true });
  // ruleid: bouts.js.command-injection.shell-with-dynamic-command
  cp.exec(cmd, { timeout: 1000 }, () => undefined);
  console.log(out);
}

export function safe(host: string, text: string): void {
  // ok: bouts.js.command-injection.shell-with-dynamic-command
  exec("ls -la", () => undefined);
  // ok: bouts.js.command-injection.shell-with-dynamic-command
  cp.execFile("ping", ["-c", "1", host], () => undefined);
  // ok: bouts.js.command-injection.shell-with-dynamic-command
  spawn("ping", ["-c", "1", host]);
  const re = /a(b+)/;
  // ok: bouts.js.command-injection.shell-with-dynamic-command
  re.exec(text);
}

export function parse(header: string): string | undefined {
  // ok: bouts.js.command-injection.shell-with-dynamic-command
  return /^Bearer (\w+)$/.exec(header)?.[1];
}
