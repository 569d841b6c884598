#!/usr/bin/env bash
# Installs the pinned Semgrep the runner's scanner uses into the project-local venv
# (<repo>/.venv, gitignored). Idempotent: a no-op when that exact version is already there.
# The runner finds it at .venv/bin/semgrep (override with RUNNER_SEMGREP_BIN).
set -euo pipefail
cd "$(dirname "$0")/../.."

SEMGREP_VERSION="1.185.0"
VENV=".venv"

# Read the version from the package metadata: `semgrep --version` would ask Semgrep's
# servers for the latest release and, with no network, hang for over a minute.
installed_version() {
  "$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("semgrep"))' 2>/dev/null || true
}

if [ -x "$VENV/bin/semgrep" ] && [ "$(installed_version)" = "$SEMGREP_VERSION" ]; then
  exit 0
fi

# Debian/Ubuntu split the venv module (and ensurepip) out of python3.
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing python3-venv for the Semgrep environment"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q python3-venv >/dev/null 2>&1 || {
      apt-get update -q >/dev/null && apt-get install -y -q python3-venv >/dev/null
    }
  else
    echo "setup: python3 lacks the venv module and apt-get is not available" >&2
    exit 1
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
echo "setup: installing semgrep $SEMGREP_VERSION into $VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  "semgrep==$SEMGREP_VERSION"
echo "setup: semgrep $(installed_version) ready"
