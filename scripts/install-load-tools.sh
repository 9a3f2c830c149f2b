#!/usr/bin/env bash
# Puts the load-test tools into the cache: ghz (gRPC load generator, Go) built from the Go module
# proxy once, then reused. Idempotent: a cached binary that reports the pinned version is kept.
# REST load (autocannon) is an npm devDependency and comes with `npm install`.
#   THREADSIGHT_CACHE  cache root (default: $HOME/.cache/threadsight)
# Prints the ghz binary's path on stdout; test/load finds it there (or via GHZ_BIN / PATH).
set -euo pipefail

version="v0.121.0"
cache="${THREADSIGHT_CACHE:-$HOME/.cache/threadsight}"
dir="$cache/bin"
bin="$dir/ghz"

# ghz --version prints the bare version ("0.121.0", on stderr); compare it so a stale build is replaced.
if [ -x "$bin" ] && [ "$("$bin" --version 2>&1)" = "${version#v}" ]; then
  echo "$bin"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "install-load-tools: Go is needed to build ghz $version (https://go.dev/dl/)" >&2
  exit 1
fi

mkdir -p "$dir"
echo "install-load-tools: building ghz $version into $dir" >&2
# -ldflags sets the version string ghz reports (its release builds do the same), which the
# idempotence check above reads.
GOBIN="$dir" go install -ldflags "-X main.version=${version#v}" "github.com/bojand/ghz/cmd/ghz@$version"
"$bin" --version >/dev/null 2>&1 || { echo "install-load-tools: built binary does not run: $bin" >&2; exit 1; }
echo "$bin"
