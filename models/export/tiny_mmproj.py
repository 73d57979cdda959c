#!/usr/bin/env python3
"""A tiny, randomly initialised vision projector (llama.cpp `mmproj` GGUF) for tests.

It follows llama.cpp's CLIP I/O contract (tools/mtmd/clip.cpp, llama-cpp-sys-2 =0.1.160):
`general.architecture = "clip"`, `clip.has_vision_encoder`, `clip.projector_type = "mlp"`
(LLaVA style: ViT, then `mm.0` linear -> GELU -> `mm.2` linear), the `clip.vision.*`
hyper-parameters and the tensor names `v.patch_embd.*`, `v.position_embd.weight`,
`v.pre_ln.*`, `v.blk.N.{ln1,attn_q,attn_k,attn_v,attn_out,ln2,ffn_up,ffn_down}.*`,
`mm.{0,2}.*`. Images are resized to IMAGE_SIZE x IMAGE_SIZE and cut into PATCH x PATCH
patches: (32 / 8)^2 = 16 image tokens of width `--width` (SmolLM2-135M: 576).
The LLaVA graph runs the first `block_count - 1` blocks (it takes the penultimate layer).

The weights are random (fixed seed): the projector carries no meaning; it exists so the
runtime's image path (mtmd encode -> embeddings -> llama_decode) can be tested end to end
without a vision-language model from a hub. Written with numpy alone (no `gguf` package),
so regenerating needs no extra install:

    python models/export/tiny_mmproj.py --width 576 --out models/vlm-tiny/mmproj-tiny.gguf
    python models/export/tiny_mmproj.py --width 512 --out models/vlm-tiny/mmproj-tiny-w512.gguf
"""

import argparse
import struct

import numpy as np

IMAGE_SIZE = 32
PATCH = 8
N_EMBD = 32
N_FF = 64  # != N_EMBD, else clip.cpp's legacy up/down swap heuristic would fire
N_HEAD = 2
N_LAYER = 2
MM_HIDDEN = 64
ALIGN = 32

# GGUF value types
T_U32, T_F32, T_BOOL, T_STR, T_ARR = 4, 6, 7, 8, 9
GGML_F32 = 0


def s(text):
    b = text.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, vtype, value):
    out = s(key) + struct.pack("<I", vtype)
    if vtype == T_U32:
        out += struct.pack("<I", value)
    elif vtype == T_F32:
        out += struct.pack("<f", value)
    elif vtype == T_BOOL:
        out += struct.pack("<B", 1 if value else 0)
    elif vtype == T_STR:
        out += s(value)
    elif vtype == T_ARR:  # f32 arrays only
        out += struct.pack("<IQ", T_F32, len(value)) + struct.pack(f"<{len(value)}f", *value)
    return out


def build(width, seed):
    rng = np.random.default_rng(seed)
    n_patches = (IMAGE_SIZE // PATCH) ** 2

    def w(*shape, scale=None):
        fan_in = shape[-1] if len(shape) == 2 else int(np.prod(shape[1:]))
        sc = scale if scale is not None else 1.0 / np.sqrt(fan_in)
        return (rng.standard_normal(shape) * sc).astype(np.float32)

    def b(n, scale=0.02):
        return (rng.standard_normal(n) * scale).astype(np.float32)

    t = {}
    # numpy shapes are PyTorch's (out, in, ...); GGUF stores ggml's ne = reversed shape.
    t["v.patch_embd.weight"] = w(N_EMBD, 3, PATCH, PATCH)
    t["v.patch_embd.bias"] = b(N_EMBD)
    t["v.position_embd.weight"] = w(n_patches, N_EMBD, scale=0.1)
    t["v.pre_ln.weight"] = np.ones(N_EMBD, np.float32)
    t["v.pre_ln.bias"] = np.zeros(N_EMBD, np.float32)
    for il in range(N_LAYER):
        p = f"v.blk.{il}"
        t[f"{p}.ln1.weight"] = np.ones(N_EMBD, np.float32)
        t[f"{p}.ln1.bias"] = np.zeros(N_EMBD, np.float32)
        for name in ("attn_q", "attn_k", "attn_v", "attn_out"):
            t[f"{p}.{name}.weight"] = w(N_EMBD, N_EMBD)
            t[f"{p}.{name}.bias"] = b(N_EMBD)
        t[f"{p}.ln2.weight"] = np.ones(N_EMBD, np.float32)
        t[f"{p}.ln2.bias"] = np.zeros(N_EMBD, np.float32)
        t[f"{p}.ffn_up.weight"] = w(N_FF, N_EMBD)
        t[f"{p}.ffn_up.bias"] = b(N_FF)
        t[f"{p}.ffn_down.weight"] = w(N_EMBD, N_FF)
        t[f"{p}.ffn_down.bias"] = b(N_EMBD)
    t["mm.0.weight"] = w(MM_HIDDEN, N_EMBD)
    t["mm.0.bias"] = b(MM_HIDDEN)
    # Outputs of about the scale of SmolLM2's token embeddings.
    t["mm.2.weight"] = w(width, MM_HIDDEN, scale=0.05 / np.sqrt(MM_HIDDEN) * 4)
    t["mm.2.bias"] = b(width, 0.01)

    kvs = [
        kv("general.architecture", T_STR, "clip"),
        kv("general.name", T_STR, f"vista-tiny-mmproj-w{width}"),
        kv("general.description", T_STR, "random weights, for tests only (models/export/tiny_mmproj.py)"),
        kv("clip.has_vision_encoder", T_BOOL, True),
        kv("clip.projector_type", T_STR, "mlp"),
        kv("clip.use_gelu", T_BOOL, True),
        kv("clip.vision.image_size", T_U32, IMAGE_SIZE),
        kv("clip.vision.patch_size", T_U32, PATCH),
        kv("clip.vision.embedding_length", T_U32, N_EMBD),
        kv("clip.vision.feed_forward_length", T_U32, N_FF),
        kv("clip.vision.block_count", T_U32, N_LAYER),
        kv("clip.vision.projection_dim", T_U32, width),
        kv("clip.vision.attention.head_count", T_U32, N_HEAD),
        kv("clip.vision.attention.layer_norm_epsilon", T_F32, 1e-5),
        kv("clip.vision.image_mean", T_ARR, [0.5, 0.5, 0.5]),
        kv("clip.vision.image_std", T_ARR, [0.5, 0.5, 0.5]),
    ]

    infos = b""
    data = b""
    for name, arr in t.items():
        arr = np.ascontiguousarray(arr, dtype="<f4")
        ne = list(reversed(arr.shape))
        infos += s(name) + struct.pack("<I", len(ne)) + struct.pack(f"<{len(ne)}Q", *ne)
        infos += struct.pack("<IQ", GGML_F32, len(data))
        data += arr.tobytes()
        data += b"\0" * ((-len(data)) % ALIGN)

    head = b"GGUF" + struct.pack("<IQQ", 3, len(t), len(kvs)) + b"".join(kvs) + infos
    head += b"\0" * ((-len(head)) % ALIGN)
    return head + data


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--width", type=int, default=576, help="projector output width (= LM n_embd)")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    blob = build(a.width, a.seed)
    with open(a.out, "wb") as f:
        f.write(blob)
    print(f"{a.out}: {len(blob)} bytes")


if __name__ == "__main__":
    main()
