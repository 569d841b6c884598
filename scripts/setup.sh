#!/usr/bin/env bash
# Installs what the project needs beyond npm, idempotently (each step is fast when its tool is
# already there): every scripts/setup/*.sh in order, what `npm start` needs (the runner's
# sandbox, pytest, Semgrep); with --tests also every scripts/setup/tests/*.sh, what only the
# tests need (Chromium for the browser tests, Schemathesis for the API contract test).
# `npm start` runs it bare; `npm test`, `npm run setup` and .ci/run with --tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# One setup at a time on a checkout: two `npm start`s side by side (README) and the e2e files'
# platforms each run it, and two at once would install into the same venvs and caches.
mkdir -p .cache
exec 9>.cache/setup.lock
flock 9
steps=(scripts/setup/*.sh)
if [ "${1:-}" = "--tests" ]; then
  steps+=(scripts/setup/tests/*.sh)
elif [ $# -gt 0 ]; then
  echo "usage: bash scripts/setup.sh [--tests]" >&2
  exit 2
fi
for step in "${steps[@]}"; do
  [ -e "$step" ] || continue
  bash "$step"
done
