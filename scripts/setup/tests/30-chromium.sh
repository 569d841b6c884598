#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests (e2e/, docs/pages.md), idempotently: a no-op
# when a chromium binary is already there. As root it runs apt-get directly; otherwise through
# sudo when sudo works without a password prompt; otherwise it says what to run and exits 0, so
# setup goes on and the browser tests skip with a visible reason. CI runs as root: it installs.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: chromium not installed and apt-get is not available; the browser tests will skip" >&2
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
  as_root=(sudo -n)
else
  echo "setup: chromium is not installed and this user cannot install packages." >&2
  echo "setup: run 'sudo apt-get update && sudo apt-get install -y chromium' for the browser tests;" >&2
  echo "setup: until then they skip." >&2
  exit 0
fi

echo "setup: installing chromium (Debian package) for the browser tests"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
echo "setup: $(chromium --version 2>/dev/null || echo 'chromium installed')"
