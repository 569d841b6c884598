#!/usr/bin/env bash
# The tarballs the example challenges' lockfiles pin, into .cache/npm-tarballs/ (checked against
# each lock's sha512), so `npm start` and the tests serve them from a local registry with no
# network (docs/dependencies.md, "The example challenges' packages"). Fast when all are there.
set -euo pipefail
cd "$(dirname "$0")/../.."
node_modules/.bin/tsx scripts/npm-tarballs.ts
