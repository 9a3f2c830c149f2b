#!/usr/bin/env bash
# aiosmtpd (PyPI: the asyncio SMTP server of the aio-libs project), pinned, in its own virtualenv
# under ~/.cache/threadsight, for test/harness/smtp.ts: a real SMTP server on loopback that the
# portal's verification mail is sent to. Idempotent and quiet.
set -euo pipefail
AIOSMTPD_VERSION=1.4.6
CACHE="${THREADSIGHT_CACHE:-${HOME}/.cache/threadsight}"
bash "$(dirname "$0")/pip-venv.sh" "${CACHE}/aiosmtpd-${AIOSMTPD_VERSION}" "aiosmtpd==${AIOSMTPD_VERSION}" \
  "python -c \"import aiosmtpd, sys; sys.exit(aiosmtpd.__version__ != '${AIOSMTPD_VERSION}')\""
