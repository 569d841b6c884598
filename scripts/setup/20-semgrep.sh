#!/usr/bin/env bash
# Installs the pinned Semgrep the runner's scanner uses into the project-local venv
# (<repo>/.venv, gitignored). Idempotent: a no-op when that exact version is already there.
# The runner finds it at .venv/bin/semgrep (override with RUNNER_SEMGREP_BIN).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup/lib/pip-venv.sh

SEMGREP_VERSION="1.185.0"
ensure_pinned_tool .venv semgrep "$SEMGREP_VERSION" semgrep
