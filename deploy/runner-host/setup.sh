#!/usr/bin/env bash
# Installs the Bouts runner on a plain Debian/Ubuntu host as the systemd service bouts-runner
# (docs/runner.md, "Deploying the runner on a plain Linux host"). Run as root from a checkout:
#   sudo bash deploy/runner-host/setup.sh
# Installs bubblewrap, Python 3.11, Node 22 (the project's pinned version) under /opt/bouts/node,
# the app under /opt/bouts/app with pytest and Semgrep as scripts/setup installs them, writes
# /etc/bouts-runner/runner.env with a fresh secret if there is none, then runs the same isolation
# self-test the Container image runs at start and enables the service only if it passes.
set -euo pipefail

SRC="$(cd "$(dirname "$0")/../.." && pwd)"
PREFIX="${BOUTS_PREFIX:-/opt/bouts}"
APP="$PREFIX/app"
NODE_DIR="$PREFIX/node"
ETC=/etc/bouts-runner
UNIT=/etc/systemd/system/bouts-runner.service
# The Node the project pins (the `node` dev dependency of package.json).
NODE_VERSION="$(sed -n 's/^ *"node": "\([0-9.]*\)",\{0,1\}$/\1/p' "$SRC/package.json" | head -1)"

[ "$(id -u)" -eq 0 ] || { echo "setup: run as root" >&2; exit 1; }
[ -n "$NODE_VERSION" ] || { echo "setup: no pinned node version in package.json" >&2; exit 1; }

echo "setup: system packages (bubblewrap, util-linux, Python 3.11, rsync)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
  bubblewrap util-linux python3.11 python3.11-venv ca-certificates curl xz-utils rsync

case "$(uname -m)" in
  x86_64) NODE_ARCH=x64 ;;
  aarch64) NODE_ARCH=arm64 ;;
  *) echo "setup: unsupported architecture $(uname -m)" >&2; exit 1 ;;
esac
if [ "$("$NODE_DIR/bin/node" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
  echo "setup: Node $NODE_VERSION into $NODE_DIR"
  tarball="node-v$NODE_VERSION-linux-$NODE_ARCH.tar.xz"
  tmp="$(mktemp -d)"
  curl -fsSLo "$tmp/$tarball" "https://nodejs.org/dist/v$NODE_VERSION/$tarball"
  curl -fsSLo "$tmp/SHASUMS256.txt" "https://nodejs.org/dist/v$NODE_VERSION/SHASUMS256.txt"
  (cd "$tmp" && grep " $tarball\$" SHASUMS256.txt | sha256sum -c -)
  rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
  tar -xJf "$tmp/$tarball" -C "$NODE_DIR" --strip-components=1
  rm -rf "$tmp"
fi
export PATH="$NODE_DIR/bin:$PATH"

echo "setup: the app into $APP"
mkdir -p "$APP"
rsync -a --delete --exclude node_modules --exclude .venv --exclude .venv-contract \
  --exclude containers/runner/.venv --exclude .wrangler --exclude .dev --exclude .git \
  "$SRC/" "$APP/"
(cd "$APP" && npm ci --no-audit --no-fund --ignore-scripts \
  --workspace @bouts/runner --include-workspace-root=false \
  && npm install --no-save --no-audit --no-fund --ignore-scripts tsx@4.23.15)
# pytest into containers/runner/.venv and Semgrep into .venv, exactly as `npm run setup` does
# (the runner's defaults look there).
(cd "$APP" && bash scripts/setup/10-bubblewrap.sh && bash scripts/setup/20-semgrep.sh)

if [ ! -f "$ETC/runner.env" ]; then
  echo "setup: $ETC/runner.env with a new RUNNER_SHARED_SECRET"
  install -d -m 0700 "$ETC"
  umask 077
  {
    echo "RUNNER_HOST=0.0.0.0"
    echo "RUNNER_PORT=8080"
    echo "RUNNER_SHARED_SECRET=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')"
  } > "$ETC/runner.env"
  echo "setup: give the Worker the same secret: npx wrangler secret put RUNNER_SHARED_SECRET --env production"
  echo "setup: (read it with: sudo grep RUNNER_SHARED_SECRET $ETC/runner.env)"
fi
chmod 0600 "$ETC/runner.env"

echo "setup: the isolation self-test (the one the Container image runs at start)"
mkdir -p /var/lib/bouts-runner && chmod 0700 /var/lib/bouts-runner
# shellcheck source=/dev/null
if ! (cd "$APP" && set -a && . "$ETC/runner.env" && set +a \
  && RUNNER_WORK_DIR=/var/lib/bouts-runner NODE_ENV=production \
     node --import tsx containers/runner/src/cli/self-test.ts); then
  echo "setup: the self-test failed: the runner would refuse to serve on this host; not enabling it" >&2
  exit 1
fi

install -m 0644 "$SRC/deploy/runner-host/bouts-runner.service" "$UNIT"
systemctl daemon-reload
systemctl enable --now bouts-runner
echo "setup: bouts-runner is running; check: curl -fsS http://127.0.0.1:8080/healthz"
