#!/usr/bin/env bash
# Puts the Weaviate server binary the test suites use into the cache, building it from the Go
# module proxy when it is not there yet. Idempotent: a cached binary that runs is reused.
#   THREADSIGHT_CACHE  cache root (default: $HOME/.cache/threadsight)
# Prints the binary's path on stdout; the test harness finds it there (or via WEAVIATE_BIN).
set -euo pipefail

version="v1.35.2"
cache="${THREADSIGHT_CACHE:-$HOME/.cache/threadsight}"
dir="$cache/weaviate-$version"
bin="$dir/weaviate-server"

if [ -x "$bin" ] && "$bin" --help >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "install-weaviate: Go is needed to build weaviate-server $version (https://go.dev/dl/)" >&2
  exit 1
fi

mkdir -p "$dir"
echo "install-weaviate: building weaviate-server $version into $dir (takes several minutes)" >&2
GOBIN="$dir" go install "github.com/weaviate/weaviate/cmd/weaviate-server@$version"
"$bin" --help >/dev/null 2>&1 || { echo "install-weaviate: built binary does not run: $bin" >&2; exit 1; }
echo "$bin"
