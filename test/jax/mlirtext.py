"""Helpers for reading MLIR text in the test scripts (no JAX, no numpy: test/gpu/make_bundle.py uses it
with the system python)."""


def split_top(text, sep=","):
    """Splits at `sep` outside brackets and strings."""
    parts, depth, cur, in_str = [], 0, "", False
    for ch in text:
        if in_str:
            in_str = ch != '"'
        elif ch == '"':
            in_str = True
        elif ch in "(<{[":
            depth += 1
        elif ch in ")>}]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur)
    return parts
