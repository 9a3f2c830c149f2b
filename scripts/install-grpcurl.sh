#!/usr/bin/env bash
# Puts grpcurl (a gRPC command-line client that decodes messages through server reflection)
# into the cache, built from the Go module proxy once and then reused. test/grpc/grpcurl.test.ts
# runs it to check that reflection serves the error-detail descriptors. Idempotent and quiet.
#   THREADSIGHT_CACHE  cache root (default: $HOME/.cache/threadsight)
# Prints the grpcurl binary's path on stdout; the test finds it there (or via GRPCURL_BIN / PATH).
set -euo pipefail

version="v1.9.4"
cache="${THREADSIGHT_CACHE:-$HOME/.cache/threadsight}"
dir="$cache/bin"
bin="$dir/grpcurl"

# grpcurl -version prints "grpcurl <version>"; compare it so a stale build is replaced.
if [ -x "$bin" ] && [ "$("$bin" -version 2>&1)" = "grpcurl ${version}" ]; then
  echo "$bin"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "install-grpcurl: Go is needed to build grpcurl $version (https://go.dev/dl/)" >&2
  exit 1
fi

mkdir -p "$dir"
echo "install-grpcurl: building grpcurl $version into $dir" >&2
# -ldflags sets the version string grpcurl reports (its release builds do the same), which the
# idempotence check above reads.
GOBIN="$dir" go install -ldflags "-X main.version=${version}" "github.com/fullstorydev/grpcurl/cmd/grpcurl@$version"
"$bin" -version >/dev/null 2>&1 || { echo "install-grpcurl: built binary does not run: $bin" >&2; exit 1; }
echo "$bin"
