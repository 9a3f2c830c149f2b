#!/usr/bin/env bash
# grpcio (PyPI: the gRPC core library's Python binding), pinned, in its own virtualenv under
# ~/.cache/threadsight, for test/grpc/python-grpcio.test.ts (which reads the version below): a
# gRPC client on the reference C implementation beside grpc-js and grpc-go. Idempotent and quiet.
set -euo pipefail
GRPCIO_VERSION=1.85.3
bash "$(dirname "$0")/pip-venv.sh" "${HOME}/.cache/threadsight/grpcio-${GRPCIO_VERSION}" "grpcio==${GRPCIO_VERSION}" \
  "python -c \"import grpc, sys; sys.exit(grpc.__version__ != '${GRPCIO_VERSION}')\""
