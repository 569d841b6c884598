#!/usr/bin/env bash
# Installs what the runner's sandbox needs beyond npm, idempotently:
#  - bubblewrap (bwrap) from apt when missing (the sandbox launcher, containers/runner/src/
#    sandbox/launcher.py, sets limits and drops privileges itself: no setpriv or prlimit);
#  - a Python 3.11 venv at containers/runner/.venv (gitignored) holding the pinned pytest that
#    Python challenges run with, created from the system /usr/bin/python3.11 so the sandbox
#    (which mounts /usr read-only and nothing from $HOME) can run it.
# A no-op when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTEST_VERSION="8.3.5"
VENV="containers/runner/.venv"
PY="/usr/bin/python3.11"

apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "$@" >/dev/null 2>&1 || {
    apt-get update -q >/dev/null && apt-get install -y -q "$@" >/dev/null
  }
}

if ! command -v bwrap >/dev/null 2>&1; then
  echo "setup: installing bubblewrap"
  apt_install bubblewrap
fi
if [ ! -x "$PY" ]; then
  echo "setup: installing python3.11"
  apt_install python3.11 python3.11-venv
fi
if ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  apt_install python3.11-venv
fi

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import pytest, sys; sys.exit(pytest.__version__ != '$PYTEST_VERSION')" 2>/dev/null; then
  exit 0
fi
echo "setup: installing pytest $PYTEST_VERSION into $VENV"
"$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "pytest==$PYTEST_VERSION"
