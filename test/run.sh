#!/usr/bin/env bash
# The test command (`npm test`): typecheck everything, then run every *.test.ts with node's
# test runner. Suites that need PostgreSQL, Redis, Weaviate or Chromium start their own servers
# on free loopback ports; REQUIRE_<NAME>=1 (or CI) turns a missing one into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json --noEmit
mapfile -t files < <(find test -name '*.test.ts' -not -path '*/node_modules/*' | sort)
if [ "${#files[@]}" -eq 0 ]; then echo "no test files found" >&2; exit 1; fi
exec node --import tsx --test --test-reporter=spec --test-timeout=300000 "${@}" "${files[@]}"
