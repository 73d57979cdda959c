"""The VISTA sensor-fusion network (paper sec. 4, fig. 5, sec. 5.3) in PyTorch.

Five sensor streams (IMU, magnetometer/barometer, eye gaze, hands, 6-DoF trajectory), each a
64-bin window with a validity mask, become language-model tokens:

1. **Temporal adapters** (one per stream): every bin (values + its mask bit) is projected to
   the shared width `d_model` (256 in the paper) with a learned position embedding; `n_queries`
   (8) learned queries cross-attend to the valid bins -> 8 tokens per stream.
   The IMU adapter also attends to one token made from the *frozen* IMU encoder's embedding
   (PRIMUS, paper sec. 4): the embedding is an input of this network, computed outside it by
   the frozen encoder, so no gradient reaches the encoder and the encoder is not part of the
   exported graph. `imu_embedding_valid` = 0 masks that token (no encoder available, or no
   IMU window); the 64-bin IMU grid still feeds the same adapter (see models/contract.md).
2. **Question-conditioned reliability gates**: per stream, a small MLP of [question; mean of
   the stream's tokens] -> sigmoid gate in (0, 1); the question is a pooled embedding (mean of
   the language model's input embeddings of the question tokens). A stream with no valid bin
   (and, for the IMU, no valid embedding) is *absent*: its gate is 0.
3. **Two bottleneck-exchange layers** (Nagrani et al. 2021): `n_bottleneck` (8) shared tokens;
   in each layer, every stream runs its own transformer block over [its tokens; the shared
   tokens], and the shared tokens become the gate-weighted mean of the streams' updated copies.
   After the last layer the shared tokens are the stage-1 sensor tokens.
4. **Stage-2 readouts**: per stream, `n_readout` (4) learned queries cross-attend to that
   stream's final tokens (scaled by its gate) -> 8 + 4 x 5 = 28 tokens.
5. **Projection** to the language model's embedding width (576 for SmolLM2-135M):
   LayerNorm -> Linear -> GELU -> Linear. Tokens of an absent stream's readout are exactly 0.

Stream dropout (each stream dropped independently with p = 0.15, sec. 5.3) acts only in
training mode; the exported graph (eval mode) has none.

All inputs are float32 (masks are 0.0 / 1.0), batch-first with a dynamic batch dimension.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from torch import nn
import torch.nn.functional as F

BINS = 64

# (name, channels) in the window's order (src/window/spec.rs, GridStream::ALL).
STREAMS: list[tuple[str, int]] = [
    ("imu", 12),
    ("mag_baro", 5),
    ("eye_gaze", 5),
    ("hands", 14),
    ("trajectory", 13),
]


@dataclass
class FusionConfig:
    """Sizes of one fusion network. Defaults are the paper's (d = 256, 8 queries, ...)."""

    d_model: int = 256
    heads: int = 4
    ffn: int = 1024
    n_queries: int = 8
    n_bottleneck: int = 8
    n_exchange_layers: int = 2
    n_readout: int = 4
    stage: int = 2  # 1: the 8 shared tokens only; 2: + 4 readout tokens per stream (28)
    lm_width: int = 576  # SmolLM2-135M embedding width
    question_dim: int = 576  # pooled question embedding (the LM's input embeddings)
    imu_embed_dim: int = 512  # frozen IMU encoder (PRIMUS) embedding width
    projector_hidden: int = 576
    stream_dropout: float = 0.15
    streams: list[tuple[str, int]] = field(default_factory=lambda: list(STREAMS))

    @property
    def n_tokens(self) -> int:
        if self.stage == 1:
            return self.n_bottleneck
        return self.n_bottleneck + self.n_readout * len(self.streams)


# Large negative instead of -inf: a fully masked row stays finite (its stream is absent and
# gated to 0 downstream).
MASK_BIAS = -1.0e4


class Attention(nn.Module):
    """Multi-head attention written with MatMul/Softmax (plain ONNX ops, no fused kernel)."""

    def __init__(self, d: int, heads: int):
        super().__init__()
        assert d % heads == 0
        self.h = heads
        self.dh = d // heads
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)

    def forward(self, x_q: torch.Tensor, x_kv: torch.Tensor, kv_valid: torch.Tensor) -> torch.Tensor:
        # x_q [B, Q, d], x_kv [B, K, d], kv_valid [B, K] in {0, 1}
        b, nq, d = x_q.shape
        nk = x_kv.shape[1]
        q = self.q(x_q).reshape(b, nq, self.h, self.dh).transpose(1, 2)
        k = self.k(x_kv).reshape(b, nk, self.h, self.dh).transpose(1, 2)
        v = self.v(x_kv).reshape(b, nk, self.h, self.dh).transpose(1, 2)
        logits = torch.matmul(q, k.transpose(2, 3)) * (1.0 / math.sqrt(self.dh))
        logits = logits + ((1.0 - kv_valid) * MASK_BIAS)[:, None, None, :]
        att = torch.softmax(logits, dim=-1)
        out = torch.matmul(att, v).transpose(1, 2).reshape(b, nq, d)
        return self.o(out)


class Block(nn.Module):
    """Pre-norm transformer block: attention of `x_q` over `x_kv`, then a feed-forward."""

    def __init__(self, d: int, heads: int, ffn: int):
        super().__init__()
        self.ln_q = nn.LayerNorm(d)
        self.ln_kv = nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.ln_f = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, ffn), nn.GELU(), nn.Linear(ffn, d))

    def forward(self, x_q, x_kv, kv_valid):
        x = x_q + self.attn(self.ln_q(x_q), self.ln_kv(x_kv), kv_valid)
        return x + self.ff(self.ln_f(x))


class TemporalAdapter(nn.Module):
    """One stream's 64-bin window (+ mask) -> `n_queries` tokens of width d."""

    def __init__(self, channels: int, cfg: FusionConfig, extra_dim: int | None = None):
        super().__init__()
        d = cfg.d_model
        self.inp = nn.Linear(channels + 1, d)
        self.pos = nn.Parameter(torch.randn(BINS, d) * 0.02)
        self.queries = nn.Parameter(torch.randn(cfg.n_queries, d) * 0.02)
        self.block = Block(d, cfg.heads, cfg.ffn)
        self.extra = nn.Linear(extra_dim, d) if extra_dim else None
        self.extra_type = nn.Parameter(torch.randn(1, 1, d) * 0.02) if extra_dim else None

    def forward(self, values, mask, extra=None, extra_valid=None):
        # values [B, 64, C], mask [B, 64]; extra [B, E], extra_valid [B]
        x = self.inp(torch.cat([values * mask[:, :, None], mask[:, :, None]], dim=-1)) + self.pos
        valid = mask
        if self.extra is not None:
            e = self.extra(extra * extra_valid[:, None])[:, None, :] + self.extra_type
            x = torch.cat([x, e], dim=1)
            valid = torch.cat([mask, extra_valid[:, None]], dim=1)
        q = self.queries[None].expand(x.shape[0], -1, -1)
        tokens = self.block(q, x, valid)
        present = (valid.sum(dim=1) > 0.5).to(values.dtype)  # [B]
        return tokens, present


class ReliabilityGate(nn.Module):
    """sigmoid(MLP([question; mean token])) -> one weight per example."""

    def __init__(self, d: int):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(2 * d, d), nn.GELU(), nn.Linear(d, 1))

    def forward(self, q, tokens):
        return torch.sigmoid(self.mlp(torch.cat([q, tokens.mean(dim=1)], dim=-1)))[:, 0]


class FusionNet(nn.Module):
    """The whole network; `forward` takes the 13 inputs of models/contract.md in order."""

    def __init__(self, cfg: FusionConfig):
        super().__init__()
        self.cfg = cfg
        d = cfg.d_model
        self.adapters = nn.ModuleList(
            [
                TemporalAdapter(c, cfg, cfg.imu_embed_dim if name == "imu" else None)
                for name, c in cfg.streams
            ]
        )
        self.question = nn.Sequential(nn.LayerNorm(cfg.question_dim), nn.Linear(cfg.question_dim, d))
        self.gates = nn.ModuleList([ReliabilityGate(d) for _ in cfg.streams])
        self.bottleneck = nn.Parameter(torch.randn(cfg.n_bottleneck, d) * 0.02)
        # One block per (layer, stream), as in attention bottlenecks (per-modality layers).
        self.exchange = nn.ModuleList(
            [
                nn.ModuleList([Block(d, cfg.heads, cfg.ffn) for _ in cfg.streams])
                for _ in range(cfg.n_exchange_layers)
            ]
        )
        self.readout_queries = nn.ParameterList(
            [nn.Parameter(torch.randn(cfg.n_readout, d) * 0.02) for _ in cfg.streams]
        )
        self.readout = nn.ModuleList([Block(d, cfg.heads, cfg.ffn) for _ in cfg.streams])
        self.project = nn.Sequential(
            nn.LayerNorm(d),
            nn.Linear(d, cfg.projector_hidden),
            nn.GELU(),
            nn.Linear(cfg.projector_hidden, cfg.lm_width),
        )

    def forward(
        self,
        imu, imu_mask,
        mag_baro, mag_baro_mask,
        eye_gaze, eye_gaze_mask,
        hands, hands_mask,
        trajectory, trajectory_mask,
        imu_embedding, imu_embedding_valid,
        question_embedding,
    ):
        cfg = self.cfg
        grids = [
            (imu, imu_mask),
            (mag_baro, mag_baro_mask),
            (eye_gaze, eye_gaze_mask),
            (hands, hands_mask),
            (trajectory, trajectory_mask),
        ]
        q = self.question(question_embedding)  # [B, d]
        b = q.shape[0]

        tokens, weights = [], []
        for i, ((values, mask), adapter, gate) in enumerate(zip(grids, self.adapters, self.gates)):
            if i == 0:
                t, present = adapter(values, mask, imu_embedding, imu_embedding_valid)
            else:
                t, present = adapter(values, mask)
            if self.training and cfg.stream_dropout > 0:
                keep = (torch.rand(b, device=q.device) >= cfg.stream_dropout).to(t.dtype)
                present = present * keep
            g = gate(q, t) * present  # [B]
            tokens.append(t * g[:, None, None])
            weights.append(g)
        w = torch.stack(weights, dim=1)  # [B, S]

        z = self.bottleneck[None].expand(b, -1, -1) + q[:, None, :]
        n_q = cfg.n_queries
        ones = torch.ones(b, n_q + cfg.n_bottleneck, dtype=q.dtype, device=q.device)
        for layer in self.exchange:
            z_sum = torch.zeros_like(z)
            new_tokens = []
            for s, block in enumerate(layer):
                x = torch.cat([tokens[s], z], dim=1)
                y = block(x, x, ones)
                new_tokens.append(y[:, :n_q] * (w[:, s] > 0).to(y.dtype)[:, None, None])
                z_sum = z_sum + y[:, n_q:] * w[:, s, None, None]
            # Gate-weighted mean of the streams' bottleneck copies; with no stream present
            # the shared tokens stay as they were.
            eps = 1e-6
            z = (z_sum + eps * z) / (w.sum(dim=1)[:, None, None] + eps)
            tokens = new_tokens

        out = [z]
        if cfg.stage == 2:
            for s, block in enumerate(self.readout):
                rq = self.readout_queries[s][None].expand(b, -1, -1)
                r = block(rq, tokens[s], torch.ones(b, n_q, dtype=q.dtype, device=q.device))
                out.append(r)
        seq = torch.cat(out, dim=1)  # [B, n_tokens, d]
        proj = self.project(seq)
        if cfg.stage == 2:
            # Zero the readout tokens of absent streams (gate 0).
            present = (w > 0).to(proj.dtype)  # [B, S]
            tok_mask = torch.cat(
                [torch.ones(b, cfg.n_bottleneck, dtype=proj.dtype, device=proj.device)]
                + [present[:, s, None].expand(-1, cfg.n_readout) for s in range(len(cfg.streams))],
                dim=1,
            )
            proj = proj * tok_mask[:, :, None]
        return proj, w


INPUT_NAMES = [
    "imu", "imu_mask",
    "mag_baro", "mag_baro_mask",
    "eye_gaze", "eye_gaze_mask",
    "hands", "hands_mask",
    "trajectory", "trajectory_mask",
    "imu_embedding", "imu_embedding_valid",
    "question_embedding",
]
OUTPUT_NAMES = ["sensor_tokens", "gates"]


def example_inputs(cfg: FusionConfig, batch: int = 1, seed: int = 0) -> list[torch.Tensor]:
    """A fixed, realistic-looking input: normalised values ~N(0,1), masks with gaps (the
    hands stream fully absent, so absent-stream handling is exercised), a valid IMU
    embedding and a question embedding of the LM's embedding scale."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for k, (name, c) in enumerate(cfg.streams):
        values = torch.randn(batch, BINS, c, generator=g)
        mask = (torch.rand(batch, BINS, generator=g) > 0.2).to(torch.float32)
        if name == "hands":
            mask = torch.zeros(batch, BINS)
        if name == "eye_gaze":
            mask[:, :20] = 0.0  # a dropout at the start of the window
        values = values * mask[:, :, None]
        out += [values, mask]
    out.append(torch.randn(batch, cfg.imu_embed_dim, generator=g))
    out.append(torch.ones(batch))
    out.append(torch.randn(batch, cfg.question_dim, generator=g) * 0.05)
    return out
