"""`.vten`: a few named float32 tensors in one small binary file (models/contract.md).

Layout, little-endian:
    magic   8 bytes  b"VTENSOR1"
    count   u32      number of tensors
    then per tensor:
        name_len u16, name (UTF-8, name_len bytes)
        ndim     u8,  dims (ndim x u32)
        data     prod(dims) x f32, row-major
Read in Rust by `vista::infer::tensor_file`.
"""

from __future__ import annotations

import struct

import numpy as np

MAGIC = b"VTENSOR1"


def write(path: str, tensors: list[tuple[str, np.ndarray]]) -> None:
    with open(path, "wb") as f:
        f.write(MAGIC)
        f.write(struct.pack("<I", len(tensors)))
        for name, arr in tensors:
            a = np.ascontiguousarray(arr, dtype="<f4")
            nb = name.encode("utf-8")
            f.write(struct.pack("<H", len(nb)))
            f.write(nb)
            f.write(struct.pack("<B", a.ndim))
            for d in a.shape:
                f.write(struct.pack("<I", d))
            f.write(a.tobytes())


def read(path: str) -> dict[str, np.ndarray]:
    with open(path, "rb") as f:
        buf = f.read()
    assert buf[:8] == MAGIC, "not a .vten file"
    (count,) = struct.unpack_from("<I", buf, 8)
    off = 12
    out = {}
    for _ in range(count):
        (n,) = struct.unpack_from("<H", buf, off)
        off += 2
        name = buf[off : off + n].decode("utf-8")
        off += n
        (ndim,) = struct.unpack_from("<B", buf, off)
        off += 1
        dims = struct.unpack_from("<" + "I" * ndim, buf, off)
        off += 4 * ndim
        size = int(np.prod(dims)) if ndim else 1
        out[name] = np.frombuffer(buf, dtype="<f4", count=size, offset=off).reshape(dims)
        off += 4 * size
    return out
