"""Export the fusion network to ONNX (fp32 and int8) with a fixed input and reference outputs.

    python models/export/export.py --preset tiny --out models/fusion-tiny
    python models/export/export.py --preset paper --out /tmp/fusion-paper [--weights W.pt] [--batch 1]

Writes into OUT:
    fusion.onnx         fp32, opset 17, dynamic batch dimension (`--batch 1`: a fixed batch
                        of one, what the runtime runs: every shape computation is folded at
                        export, measurably faster per update; see README "Targets")
    fusion.int8.onnx    onnxruntime dynamic quantisation (weights int8 in a 7-bit range,
                        activations quantised at run time)
    config.json         the FusionConfig used (sizes, token count, widths)
    input.vten          a fixed input (models/export/fusion.py example_inputs, batch 1)
    reference_fp32.vten PyTorch's outputs for that input (an implementation independent of
                        the ONNX engines that run the exported graph)
    reference_int8.vten onnxruntime (Python, 1.32.0) outputs of fusion.int8.onnx
Without --weights the weights are random (seeded): a test instance, not a trained model.
Needs torch, onnx, onnxruntime==1.32.0, numpy; the runtime and CI do not.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fusion import FusionConfig, FusionNet, INPUT_NAMES, OUTPUT_NAMES, example_inputs  # noqa: E402
import vten  # noqa: E402

PRESETS = {
    # The paper's sizes (sec. 4): d = 256, 8 queries, 2 exchange layers, 28 tokens, SmolLM2 width.
    "paper": FusionConfig(),
    # Same I/O contract, hidden sizes reduced so the files stay well under 1 MB.
    "tiny": FusionConfig(d_model=16, heads=2, ffn=32, projector_hidden=16),
}

OPSET = 17


def shorten_names(graph) -> None:
    """Renames nodes and intermediate values to short ids (n12, v34): the exporter's names
    (`/exchange.1/exchange.1.3/attn/Reshape_2_output_0`) are most of a small model's bytes.
    Graph inputs, outputs and initializers (the weights' names) keep theirs."""
    keep = {i.name for i in graph.input} | {o.name for o in graph.output}
    keep |= {i.name for i in graph.initializer}
    rename: dict[str, str] = {}
    for k, node in enumerate(graph.node):
        node.name = f"n{k}"
        for out_i, out in enumerate(node.output):
            if out and out not in keep:
                rename.setdefault(out, f"v{len(rename)}")
                node.output[out_i] = rename[out]
    for node in graph.node:
        for in_i, name in enumerate(node.input):
            if name in rename:
                node.input[in_i] = rename[name]
    for vi in graph.value_info:
        if vi.name in rename:
            vi.name = rename[vi.name]


def export(cfg: FusionConfig, out: str, seed: int, weights: str | None, batch: str = "dynamic") -> None:
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(seed)
    model = FusionNet(cfg)
    if weights:
        model.load_state_dict(torch.load(weights, map_location="cpu"))
    model.eval()
    inputs = example_inputs(cfg, batch=1, seed=seed)

    fp32 = os.path.join(out, "fusion.onnx")
    # A dynamic batch keeps the graph's shape arithmetic (Shape, Gather, Unsqueeze, Concat
    # before every reshape) in the model; a fixed batch of one lets the exporter fold it.
    dyn = {n: {0: "batch"} for n in INPUT_NAMES + OUTPUT_NAMES} if batch == "dynamic" else None
    kwargs = dict(
        input_names=INPUT_NAMES,
        output_names=OUTPUT_NAMES,
        dynamic_axes=dyn,
        opset_version=OPSET,
        do_constant_folding=True,
    )
    try:
        torch.onnx.export(model, tuple(inputs), fp32, dynamo=False, **kwargs)
    except TypeError:  # torch without the `dynamo` switch
        torch.onnx.export(model, tuple(inputs), fp32, **kwargs)

    import onnx

    m = onnx.load(fp32)
    shorten_names(m.graph)
    onnx.checker.check_model(m)
    m.producer_name = "vista models/export/export.py"
    onnx.helper.set_model_props(
        m,
        {
            "vista.contract": "fusion/1",
            "vista.n_tokens": str(cfg.n_tokens),
            "vista.lm_width": str(cfg.lm_width),
            "vista.batch": batch,
        },
    )
    onnx.save(m, fp32)

    from onnxruntime.quantization import QuantType, quantize_dynamic

    int8 = os.path.join(out, "fusion.int8.onnx")
    # reduce_range: 7-bit weights. On x86 CPUs without VNNI (AVX2, AVX-512 without VNNI)
    # onnxruntime's u8s8 kernels add pairs of products in 16 bits and saturate with 8-bit
    # weights: measured on an AMD EPYC (AVX2), the int8 tokens drifted 48 % of their scale
    # from fp32 (0.43 of 0.91) against 1.2 % on a VNNI CPU. With 7-bit weights no pair
    # saturates, so every CPU (and tract) computes the same integers: 2.4 % drift.
    quantize_dynamic(fp32, int8, weight_type=QuantType.QInt8, reduce_range=True)
    # The quantiser's shape inference leaves value_info with the symbolic `batch`; engines
    # that fix the batch at load (tract) cannot unify it with 1. Shapes are re-inferred.
    q = onnx.load(int8)
    del q.graph.value_info[:]
    onnx.save(q, int8)

    with torch.no_grad():
        ref = model(*inputs)
    ref_np = [r.numpy() for r in ref]

    import onnxruntime as ort

    feeds = {n: t.numpy() for n, t in zip(INPUT_NAMES, inputs)}
    got32 = ort.InferenceSession(fp32, providers=["CPUExecutionProvider"]).run(OUTPUT_NAMES, feeds)
    got8 = ort.InferenceSession(int8, providers=["CPUExecutionProvider"]).run(OUTPUT_NAMES, feeds)
    for name, r, g in zip(OUTPUT_NAMES, ref_np, got32):
        err = float(np.max(np.abs(r - g)))
        print(f"{name}: torch vs onnxruntime fp32 max |diff| = {err:.3g}")
        assert err < 1e-4, f"{name}: exported graph disagrees with PyTorch ({err})"
    for name, r, g in zip(OUTPUT_NAMES, ref_np, got8):
        err = float(np.max(np.abs(r - g)))
        scale = float(np.max(np.abs(r)))
        print(f"{name}: int8 vs fp32 max |diff| = {err:.3g} (max |fp32| = {scale:.3g})")

    vten.write(os.path.join(out, "input.vten"), list(feeds.items()))
    vten.write(os.path.join(out, "reference_fp32.vten"), list(zip(OUTPUT_NAMES, ref_np)))
    vten.write(os.path.join(out, "reference_int8.vten"), list(zip(OUTPUT_NAMES, got8)))
    conf = dataclasses.asdict(cfg)
    conf["n_tokens"] = cfg.n_tokens
    conf["opset"] = OPSET
    conf["seed"] = seed
    conf["batch"] = batch
    conf["torch"] = torch.__version__
    conf["onnxruntime"] = ort.__version__
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(conf, f, indent=1)
        f.write("\n")
    for fn in sorted(os.listdir(out)):
        print(f"{fn}: {os.path.getsize(os.path.join(out, fn))} bytes")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", choices=sorted(PRESETS), default="tiny")
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--weights", help="a state_dict (.pt) to load instead of random weights")
    p.add_argument("--stage", type=int, choices=[1, 2], help="override the preset's stage")
    p.add_argument("--lm-width", type=int, help="override the language model's embedding width")
    p.add_argument(
        "--batch",
        choices=["dynamic", "1"],
        default="dynamic",
        help="batch dimension: dynamic (any batch) or 1 (fixed; what vista runs, faster)",
    )
    a = p.parse_args()
    cfg = dataclasses.replace(PRESETS[a.preset])
    if a.stage:
        cfg.stage = a.stage
    if a.lm_width:
        cfg.lm_width = a.lm_width
        cfg.question_dim = a.lm_width
    export(cfg, a.out, a.seed, a.weights, a.batch)


if __name__ == "__main__":
    main()
