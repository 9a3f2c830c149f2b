#!/usr/bin/env bash
# schemathesis (PyPI), pinned, in its own virtualenv under ~/.cache/threadsight, for
# test/fuzz/schemathesis.test.ts (which reads the version below). Idempotent and quiet: does
# nothing when the pinned version is already installed.
set -euo pipefail
SCHEMATHESIS_VERSION=4.32.5
venv="${HOME}/.cache/threadsight/schemathesis-${SCHEMATHESIS_VERSION}"
if "${venv}/bin/schemathesis" --version 2>/dev/null | grep -qx "schemathesis, version ${SCHEMATHESIS_VERSION}"; then
  exit 0
fi
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-schemathesis: please install python3 and python3-venv" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
fi
rm -rf "${venv}"
mkdir -p "$(dirname "${venv}")"
python3 -m venv "${venv}"
"${venv}/bin/pip" install --quiet --disable-pip-version-check --no-input "schemathesis==${SCHEMATHESIS_VERSION}"
"${venv}/bin/schemathesis" --version >/dev/null
