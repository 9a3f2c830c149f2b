#!/usr/bin/env bash
# Runs one tier of the tests with node's test runner: test/run.sh fast|all [runner options].
#   fast  (`npm test`): unit tests that need no server, no backend, no browser and no shared
#         data; which files those are is decided by one rule over their imports (test/tiers.ts).
#   all   (`npm run test:all`, .ci/run, scripts/test.sh): typecheck, then EVERY *.test.ts. Suites
#         that need PostgreSQL, Redis, Weaviate or Chromium start their own servers on free
#         loopback ports; REQUIRE_<NAME>=1 (or CI) turns a missing one into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
tier="${1:-fast}"
shift || true
case "$tier" in
  fast) mapfile -t files < <(node --import tsx test/tiers.ts fast) ;;
  all)
    npx tsc -p tsconfig.json --noEmit
    mapfile -t files < <(find test -name '*.test.ts' -not -path '*/node_modules/*' | sort)
    ;;
  *) echo "usage: test/run.sh fast|all [node --test options]" >&2; exit 2 ;;
esac
if [ "${#files[@]}" -eq 0 ]; then echo "no test files found" >&2; exit 1; fi
exec node --import tsx --test --test-reporter=spec --test-timeout=300000 "${@}" "${files[@]}"
