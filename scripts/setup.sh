#!/usr/bin/env bash
# Installs what the project needs beyond npm: every scripts/setup/*.sh in order. Each is
# idempotent and fast when its tool is already there. Called by `npm start` and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
for step in scripts/setup/*.sh; do
  [ -e "$step" ] || continue
  bash "$step"
done
