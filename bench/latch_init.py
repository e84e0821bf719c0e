"""latch_init.py - the initialisation rule of docs/task-dialect.md ("Initialisation") in numpy, bit for bit
as support/init.c computes it for `latch-interp --init SEED` and `latch-run --init SEED`:

  splitmix64(x): x += 0x9E3779B97F4A7C15; z = x; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
                 z = (z ^ (z >> 27)) * 0x94D049BB133111EB; return z ^ (z >> 31)     (all mod 2^64)
  key(p)       = splitmix64(splitmix64(SEED) ^ p), p = the index among the task.param arguments
  element i    = (sum_{j<12} (splitmix64(key + 12 i + j) >> 40) * 2^-24 - 6.0) * std   (exact fp64 sum,
                 one fp64 multiply), then rounded to the dtype (f32: nearest even; bf16: to f32, then
                 nearest even on the bit pattern); init "ones"/"zeros" give 1/0.

Used by bench/tinymoe_torch.py when no `latch-run --dry-run --dump-dir` dump is given, and checked against
that dump on the GPU machine (bench.py) and against `latch-interp --init` here (bench/test_bench.py).

    python3 bench/latch_init.py MANIFEST.json SEED OUTDIR     writes OUTDIR/<param>.npy ('<f4')
"""
import json
import os
import sys

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_MASK = (1 << 64) - 1


def splitmix64_int(x):
    """One splitmix64 on a Python int (for keys)."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def splitmix64(x):
    """splitmix64 on a uint64 array (numpy wraps uint64 array arithmetic modulo 2^64)."""
    with np.errstate(over="ignore"):
        z = x + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def init_key(seed, p):
    return splitmix64_int(splitmix64_int(seed & _MASK) ^ p)


def normal_f64(key, start, count):
    """The fp64 values z (before * std) of elements start .. start+count-1."""
    i = np.arange(start, start + count, dtype=np.uint64)
    with np.errstate(over="ignore"):
        base = np.uint64(key) + np.uint64(12) * i
        u = splitmix64(base[:, None] + np.arange(12, dtype=np.uint64)[None, :])
    r = (u >> np.uint64(40)).astype(np.float64) * 2.0 ** -24
    return r.sum(axis=1) - 6.0  # every partial sum is exact (at most 28 significant bits)


def round_bf16(f32):
    bits = f32.view(np.uint32).astype(np.uint64)
    nan = ((bits & 0x7F800000) == 0x7F800000) & ((bits & 0x007FFFFF) != 0)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
    rounded = np.where(nan, ((bits | 0x00400000) >> 16) & 0xFFFF, rounded)
    return (rounded.astype(np.uint32) << 16).view(np.float32)


def fill(arg, seed, p, limit=None, chunk=1 << 20):
    """The host image of manifest argument `arg` (a dict with shape, dtype, init, init_std) as float32
    (bf16 values widened exactly); p its tensor index. limit: only the first `limit` elements (flat)."""
    count = int(np.prod(arg["shape"], dtype=np.int64)) if arg["shape"] else 1
    n = count if limit is None else min(limit, count)
    init = arg.get("init", "normal")
    if init == "ones":
        out = np.ones(n, np.float32)
    elif init == "zeros":
        out = np.zeros(n, np.float32)
    else:
        std = float(arg.get("init_std", 0.02))
        key = init_key(seed, p)
        out = np.empty(n, np.float32)
        for s in range(0, n, chunk):
            c = min(chunk, n - s)
            out[s:s + c] = (normal_f64(key, s, c) * std).astype(np.float32)  # f64 -> f32, nearest even
    if arg["dtype"] == "bf16":
        out = round_bf16(out)
    elif arg["dtype"] != "f32":
        raise ValueError(f"{arg['name']}: the init rule here fills f32 and bf16 only, not {arg['dtype']}")
    return out if limit is not None else out.reshape(arg["shape"])


def params(manifest, seed, limit=None):
    """name -> float32 array of every "param" argument of a manifest (dict), in argument order."""
    out, p = {}, 0
    for a in manifest["args"]:
        if a["role"] == "param":
            out[a["name"]] = fill(a, seed, p, limit)
            p += 1
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    manifest = json.load(open(sys.argv[1]))
    os.makedirs(sys.argv[3], exist_ok=True)
    for name, value in params(manifest, int(sys.argv[2])).items():
        np.save(os.path.join(sys.argv[3], name + ".npy"), value)


if __name__ == "__main__":
    main()
