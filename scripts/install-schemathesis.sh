#!/usr/bin/env bash
# schemathesis (PyPI), pinned, in its own virtualenv under ~/.cache/threadsight, for
# test/fuzz/schemathesis.test.ts (which reads the version below). Idempotent and quiet: does
# nothing when the pinned version is already installed.
set -euo pipefail
SCHEMATHESIS_VERSION=4.32.5
bash "$(dirname "$0")/pip-venv.sh" "${HOME}/.cache/threadsight/schemathesis-${SCHEMATHESIS_VERSION}" "schemathesis==${SCHEMATHESIS_VERSION}" \
  "schemathesis --version | grep -qx 'schemathesis, version ${SCHEMATHESIS_VERSION}'"
