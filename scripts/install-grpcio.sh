#!/usr/bin/env bash
# grpcio (PyPI: the gRPC core library's Python binding), pinned, in its own virtualenv under
# ~/.cache/threadsight, for test/grpc/python-grpcio.test.ts (which reads the version below): a
# gRPC client on the reference C implementation beside grpc-js and grpc-go. Idempotent and quiet.
set -euo pipefail
GRPCIO_VERSION=1.85.3
venv="${HOME}/.cache/threadsight/grpcio-${GRPCIO_VERSION}"
if "${venv}/bin/python" -c "import grpc, sys; sys.exit(grpc.__version__ != '${GRPCIO_VERSION}')" 2>/dev/null; then
  exit 0
fi
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-grpcio: please install python3 and python3-venv" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
fi
rm -rf "${venv}"
mkdir -p "$(dirname "${venv}")"
python3 -m venv "${venv}"
"${venv}/bin/pip" install --quiet --disable-pip-version-check --no-input "grpcio==${GRPCIO_VERSION}"
"${venv}/bin/python" -c "import grpc" >/dev/null
