#!/usr/bin/env bash
# Install and start Threadsight on its embedded defaults (LanceDB index, SQLite accounts and
# quotas, in-process rate limits), all under ./data (THREADSIGHT_DATA_DIR). On a fresh data
# directory it first loads the bundled sample (sample/reddit-sample.ndjson: a few hundred
# public-domain Reddit posts) and builds topics, so the README's first calls answer with real
# results; THREADSIGHT_SAMPLE=off skips that, =on loads it even into a used directory or Weaviate.
# Extra arguments go to `threadsight serve`.
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

sample="${THREADSIGHT_SAMPLE:-auto}"
case "$sample" in auto|on|off) ;; *) echo "THREADSIGHT_SAMPLE must be auto, on or off, got \"$sample\"" >&2; exit 2 ;; esac
data_dir="${THREADSIGHT_DATA_DIR:-data}"
if [ "$sample" = on ] || { [ "$sample" = auto ] && [ -z "${WEAVIATE_URL:-}" ] && [ ! -d "$data_dir/lancedb" ]; }; then
  echo "start.sh: loading the bundled sample into $data_dir (THREADSIGHT_SAMPLE=off skips this)"
  THREADSIGHT_CMD="node bin/threadsight.js" bash scripts/load-sample.sh
fi
exec node bin/threadsight.js serve "$@"
