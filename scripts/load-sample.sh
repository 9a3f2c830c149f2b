#!/usr/bin/env bash
# Loads the bundled sample (sample/reddit-sample.ndjson: a few hundred public-domain Reddit posts,
# PDDL 1.0) into THREADSIGHT_DATA_DIR and builds topics, so a fresh install answers the README's
# first calls with real results. scripts/start.sh runs it on a fresh data directory; the README
# test runs it with THREADSIGHT_CMD pointing at the command's source.
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a cmd <<< "${THREADSIGHT_CMD:-node bin/threadsight.js}"
# Exit 3 means some records were skipped, which is no reason not to serve the rest.
"${cmd[@]}" ingest sample/reddit-sample.ndjson || [ $? -eq 3 ]
"${cmd[@]}" topics rebuild
