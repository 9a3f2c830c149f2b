#!/usr/bin/env bash
# Everything the test suites need on a fresh Debian machine, idempotent and quiet when done:
# Debian PostgreSQL, Redis, zstd and Chromium; the npm dependencies from the lockfile; and the
# Weaviate server binary (built once from the Go module proxy, then cached).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
[ -x /usr/lib/postgresql/15/bin/initdb ] || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
command -v redis-server >/dev/null || missing+=(redis-server)
command -v zstd >/dev/null || missing+=(zstd)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup-test-env: please install: ${missing[*]} (apt-get install ${missing[*]})" >&2
    exit 1
  fi
  echo "setup-test-env: installing ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# onnxruntime-node runs the sentence encoder on its CPU binaries, which ship in the npm package;
# its install script would download the optional CUDA build from GitHub (unreachable here): skip.
export ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install`, not `npm ci`: it installs the lockfile's versions too, and tolerates optional
  # platform packages (darwin/win32 builds of buf and LanceDB) that a registry mirror may not
  # serve; `npm ci` refuses a lockfile that cannot list them.
  npm install --no-audit --no-fund --loglevel=error
fi

bash scripts/install-weaviate.sh >/dev/null
bash scripts/install-load-tools.sh >/dev/null
bash scripts/install-schemathesis.sh >/dev/null
bash scripts/install-grpcio.sh >/dev/null
bash scripts/install-minilm.sh >/dev/null
bash scripts/install-smollm2.sh >/dev/null
bash scripts/install-stripe-mock.sh >/dev/null
bash scripts/install-smtp.sh >/dev/null
bash scripts/install-grpcurl.sh >/dev/null
