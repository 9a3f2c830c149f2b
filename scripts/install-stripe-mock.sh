#!/usr/bin/env bash
# Puts stripe-mock (Stripe's own mock of its API, served from its OpenAPI spec) into the cache,
# building it from the Go module proxy when it is not there yet. Idempotent: a cached binary that
# runs is reused.
#   THREADSIGHT_CACHE  cache root (default: $HOME/.cache/threadsight)
# Prints the binary's path on stdout; test/harness/stripe-mock.ts finds it there (or via
# STRIPE_MOCK_BIN).
set -euo pipefail

version="v0.203.0"
cache="${THREADSIGHT_CACHE:-$HOME/.cache/threadsight}"
dir="$cache/stripe-mock-$version"
bin="$dir/stripe-mock"

if [ -x "$bin" ] && "$bin" -version >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "install-stripe-mock: Go is needed to build stripe-mock $version (https://go.dev/dl/)" >&2
  exit 1
fi

mkdir -p "$dir"
echo "install-stripe-mock: building stripe-mock $version into $dir" >&2
GOBIN="$dir" go install "github.com/stripe/stripe-mock@$version"
"$bin" -version >/dev/null 2>&1 || { echo "install-stripe-mock: built binary does not run: $bin" >&2; exit 1; }
echo "$bin"
