#!/usr/bin/env bash
# Installs the pinned Schemathesis the API contract test runs (test/contract) into its own
# project-local venv (<repo>/.venv-contract, gitignored), apart from Semgrep's so that the two
# tools' dependency pins never meet. Idempotent: a no-op when that exact version is there.
set -euo pipefail
cd "$(dirname "$0")/../.."

SCHEMATHESIS_VERSION="4.32.5"
VENV=".venv-contract"

installed_version() {
  "$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null || true
}

if [ -x "$VENV/bin/st" ] && [ "$(installed_version)" = "$SCHEMATHESIS_VERSION" ]; then
  exit 0
fi
# 20-semgrep.sh has already made sure python3 has its venv module.
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
echo "setup: installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  "schemathesis==$SCHEMATHESIS_VERSION"
echo "setup: schemathesis $(installed_version) ready"
