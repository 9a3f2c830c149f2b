#!/usr/bin/env bash
# Set up everything the tests need on a fresh Debian machine (PostgreSQL, Redis, zstd, npm
# packages, the Weaviate server), then run the whole suite (`npm run test:all`). Arguments go to
# node's test runner.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-test-env.sh
exec bash test/run.sh all "$@"
