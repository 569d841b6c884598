#!/usr/bin/env bash
# Installs the pinned Schemathesis the API contract test runs (test/contract) into its own
# project-local venv (<repo>/.venv-contract, gitignored), apart from Semgrep's so that the two
# tools' dependency pins never meet. Idempotent: a no-op when that exact version is there.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/setup/lib/pip-venv.sh

SCHEMATHESIS_VERSION="4.32.5"
ensure_pinned_tool .venv-contract schemathesis "$SCHEMATHESIS_VERSION" st
