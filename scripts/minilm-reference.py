"""Writes test/enrich/fixtures/minilm-reference.json: token ids from Hugging Face's Rust
tokenizer (the `tokenizers` PyPI package, the reference implementation) and sentence vectors
from a NumPy forward pass of all-MiniLM-L6-v2 written independently of the ONNX graph, for
test/enrich/minilm.test.ts to compare against.

Run: bash scripts/pip-venv.sh ~/.cache/threadsight/minilm-ref-venv "tokenizers==0.22.1" "python -c 'import tokenizers'"
     ~/.cache/threadsight/minilm-ref-venv/bin/pip install numpy==2.2.6
     ~/.cache/threadsight/minilm-ref-venv/bin/python scripts/minilm-reference.py [model dir]
"""
import json, math, os, struct, sys
import numpy as np
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
model_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/threadsight/models/all-minilm-l6-v2")
texts = json.load(open(os.path.join(HERE, "..", "test", "enrich", "fixtures", "minilm-texts.json")))

def load(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, e in header.items():
        if name == "__metadata__" or e["dtype"] != "F32":
            continue
        a, b = e["data_offsets"]
        out[name] = np.frombuffer(data[a:b], dtype="<f4").reshape(e["shape"]).astype(np.float64)
    return out

W = load(os.path.join(model_dir, "model.safetensors"))
tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
tok.no_padding()
tok.enable_truncation(256)

def ln(x, p):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-12) * W[p + ".weight"] + W[p + ".bias"]

def lin(x, p):
    return x @ W[p + ".weight"].T + W[p + ".bias"]

erf = np.vectorize(math.erf)

def embed(ids):
    n = len(ids)
    x = W["embeddings.word_embeddings.weight"][ids] + W["embeddings.position_embeddings.weight"][:n] + W["embeddings.token_type_embeddings.weight"][0]
    x = ln(x, "embeddings.LayerNorm")
    for l in range(6):
        p = f"encoder.layer.{l}"
        q, k, v = (lin(x, f"{p}.attention.self.{m}").reshape(n, 12, 32).transpose(1, 0, 2) for m in ("query", "key", "value"))
        s = q @ k.transpose(0, 2, 1) / math.sqrt(32)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, 384)
        x = ln(lin(ctx, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
        h = lin(x, f"{p}.intermediate.dense")
        h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
        x = ln(lin(h, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
    m = x.mean(0)
    return m / max(np.linalg.norm(m), 1e-12)

rows = []
for t in texts:
    ids = tok.encode(t).ids
    rows.append({"text": t, "ids": ids, "vector": [round(float(v), 7) for v in embed(ids)]})
out = os.path.join(HERE, "..", "test", "enrich", "fixtures", "minilm-reference.json")
json.dump(rows, open(out, "w"), separators=(",", ":"))
print(f"wrote {len(rows)} rows to {out}")
