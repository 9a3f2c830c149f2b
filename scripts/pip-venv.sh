#!/usr/bin/env bash
# A pinned PyPI package in its own virtualenv, for the install-*.sh scripts of Python test tools:
#   bash scripts/pip-venv.sh <venv dir> <requirement> <check>
# Does nothing when <check> (a shell command run with the venv's bin/ first on PATH) succeeds;
# otherwise installs python3-venv if missing (as root), recreates the venv, installs
# <requirement>, and runs <check> once more.
set -euo pipefail
venv="$1"
requirement="$2"
check="$3"
name="$(basename "${venv}")"
if PATH="${venv}/bin:${PATH}" bash -c "${check}" >/dev/null 2>&1; then
  exit 0
fi
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "${name}: please install python3 and python3-venv" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
fi
rm -rf "${venv}"
mkdir -p "$(dirname "${venv}")"
python3 -m venv "${venv}"
"${venv}/bin/pip" install --quiet --disable-pip-version-check --no-input "${requirement}"
PATH="${venv}/bin:${PATH}" bash -c "${check}" >/dev/null
