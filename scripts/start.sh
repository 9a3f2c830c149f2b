#!/usr/bin/env bash
# Install and start Threadsight on its embedded defaults (LanceDB index, SQLite accounts and
# quotas, in-process rate limits), all under ./data. Extra arguments go to `threadsight serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
# onnxruntime-node, an optional dependency of LanceDB's embedding helpers we do not use, tries
# to download binaries at install time; skip that.
export ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install`, not `npm ci`: it installs the lockfile's versions too, and tolerates optional
  # platform packages (darwin/win32 builds of buf and LanceDB) that a registry mirror may not
  # serve; `npm ci` refuses a lockfile that cannot list them.
  npm install --no-audit --no-fund --loglevel=error
fi
npm run --silent build
exec node bin/threadsight.js serve "$@"
