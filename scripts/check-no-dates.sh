#!/usr/bin/env bash
# Fails when a comment in src/ carries a date (YYYY-MM-DD, years 2000-2099) or names the machine
# a figure was measured on: a comment states the invariant and its reason, and the evidence goes
# in the commit message or a decision record (docs/decisions/). Code and string literals are not
# checked. An impossible example day is written in words ("the 30th of February").
set -euo pipefail
cd "$(dirname "$0")/.."
date_re='\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b'
machine_re='\b(Xeon|EPYC|Ryzen|Intel|AMD|Graviton)\b|\b[0-9]+-core machine\b|\b(bench|benchmark|development|shared bench) machine\b'
# A comment line: starts with // or * or /*, or has a // comment after code.
comment_re='^[^:]+:[0-9]+:[[:space:]]*(//|\*|/\*)|//.*'
hits="$(grep -rnE --include='*.ts' "$date_re|$machine_re" src | grep -E "$comment_re" \
  | grep -E "^[^:]+:[0-9]+:[[:space:]]*(//|\*|/\*).*($date_re|$machine_re)|//.*($date_re|$machine_re)" || true)"
if [ -n "$hits" ]; then
  echo "Comments in src/ must not carry dates or machine names (move the evidence to docs/decisions/):" >&2
  echo "$hits" >&2
  exit 1
fi
echo "no dates or machine names in src/ comments"
