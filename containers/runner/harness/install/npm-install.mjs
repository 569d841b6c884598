// Sandboxed npm install: `node npm-install.mjs <proxy socket> <npm-cli.js> [npm ci flags…]`,
// run inside an install sandbox with no network. It relays a loopback port of the sandbox's own
// network namespace to the host's registry proxy (the Unix socket, the sandbox's only way out),
// then runs `npm ci` against that port in the current folder and exits with npm's status.
// Invariants: the relay listens on 127.0.0.1 of the sandbox only; npm gets the registry on the
// command line and no config file of the submission's (the folder holds package.json and
// package-lock.json only); this file runs no package code (npm runs with --ignore-scripts).
import { spawn } from "node:child_process";
import { connect, createServer } from "node:net";
import process from "node:process";

const [socketPath, npmCli, ...npmArgs] = process.argv.slice(2);
if (!socketPath || !npmCli) {
  process.stderr.write("usage: npm-install.mjs <proxy socket> <npm-cli.js> [flags…]\n");
  process.exit(2);
}

const relay = createServer((client) => {
  const upstream = connect(socketPath);
  client.pipe(upstream);
  upstream.pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});

relay.listen(0, "127.0.0.1", () => {
  const { port } = relay.address();
  const child = spawn(
    process.execPath,
    [npmCli, "ci", `--registry=http://127.0.0.1:${port}/`, ...npmArgs],
    { stdio: "inherit" },
  );
  child.on("exit", (code, signal) => {
    relay.close();
    process.exit(code ?? (signal ? 128 : 1));
  });
});
