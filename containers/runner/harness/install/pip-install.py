"""Sandboxed pip install: `python3.11 -I -B pip-install.py <proxy socket> <pip's folder> [flags…]`.

Runs inside an install sandbox with no network. It relays a loopback port of the sandbox's own
network namespace to the host's PyPI proxy (the Unix socket, the sandbox's only way out), then
runs pip (imported from the pinned tools folder) with `--index-url` at that port and the given
flags, and exits with pip's status. Invariants: the relay listens on 127.0.0.1 of the sandbox
only; pip gets its index on the command line, --isolated and no config file; this file runs no
package code (pip installs wheels only, --only-binary :all:, and builds nothing).
"""

import socket
import sys
import threading

if len(sys.argv) < 3:
    sys.stderr.write("usage: pip-install.py <proxy socket> <pip's folder> [flags…]\n")
    sys.exit(2)

SOCKET_PATH, TOOLS = sys.argv[1], sys.argv[2]
FLAGS = sys.argv[3:]


def pump(src, dst):
    try:
        while True:
            chunk = src.recv(65536)
            if not chunk:
                break
            dst.sendall(chunk)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def relay(listener):
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(SOCKET_PATH)
        except OSError:
            client.close()
            continue
        threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client), daemon=True).start()


listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
port = listener.getsockname()[1]
threading.Thread(target=relay, args=(listener,), daemon=True).start()

sys.path.insert(0, TOOLS)
from pip._internal.cli.main import main  # noqa: E402  (pip lives in the tools folder)

sys.exit(main(["install", f"--index-url=http://127.0.0.1:{port}/simple/", *FLAGS]))
