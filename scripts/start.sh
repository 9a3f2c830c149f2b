#!/usr/bin/env bash
# Install and start Threadsight on its embedded defaults (LanceDB index, SQLite accounts and
# quotas, in-process rate limits), all under ./data. Extra arguments go to `threadsight serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
# onnxruntime-node runs the sentence encoder on its CPU binaries, which ship in the npm package;
# its install script would download the optional CUDA build from GitHub (unreachable here): skip.
export ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install`, not `npm ci`: it installs the lockfile's versions too, and tolerates optional
  # platform packages (darwin/win32 builds of buf and LanceDB) that a registry mirror may not
  # serve; `npm ci` refuses a lockfile that cannot list them.
  npm install --no-audit --no-fund --loglevel=error
fi
npm run --silent build
exec node bin/threadsight.js serve "$@"
