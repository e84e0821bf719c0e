"""Writes MLIR text that nests `count` levels deep in one of several ways (for nesting.test).

    python3 deep.py KIND COUNT
"""
import sys

kind, count = sys.argv[1], int(sys.argv[2])
out = sys.stdout
if kind == "parens":  # just brackets
    out.write("(" * count + "\n")
elif kind == "regions":  # nested regions, one level per line; valid when count is small enough
    out.write("func.func @f() {\n")
    for _ in range(count):
        out.write('"scf.execute_region"() ({\n')
    for _ in range(count):
        out.write('"scf.yield"() : () -> ()\n}) : () -> ()\n')
    out.write("return\n}\n")
elif kind == "arrays":  # a nested array attribute
    out.write("func.func @f() attributes {a = " + "[" * count + "]" * count + "} {\n  return\n}\n")
elif kind == "negations":  # unary minus in an affine expression: the parser recurses per '-'
    out.write("#m = affine_map<(d0) -> (" + "-" * count + "d0)>\n")
    out.write("func.func @f() attributes {m = #m} {\n  return\n}\n")
elif kind == "sums":  # a long affine sum: the parser recurses per operator, the printer per term
    out.write("#m = affine_map<(d0, d1) -> (d0" + " + d1" * count + ")>\n")
    out.write("func.func @f() attributes {m = #m} {\n  return\n}\n")
elif kind == "attribute-aliases":  # each alias one level deeper than the last, in a short line
    out.write("#a0 = [0]\n")
    for i in range(1, count):
        out.write(f"#a{i} = [#a{i - 1}]\n")
    out.write(f"func.func @f() attributes {{a = #a{count - 1}}} {{\n  return\n}}\n")
elif kind == "type-aliases":
    out.write("!t0 = i32\n")
    for i in range(1, count):
        out.write(f"!t{i} = tuple<!t{i - 1}>\n")
    out.write(f"func.func @f() attributes {{t = !t{count - 1}}} {{\n  return\n}}\n")
elif kind == "doubling-aliases":  # each alias twice the size of the last: 2**count once printed
    out.write("#a0 = [0]\n")
    for i in range(1, count):
        out.write(f"#a{i} = [#a{i - 1}, #a{i - 1}]\n")
    out.write(f"func.func @f() attributes {{a = #a{count - 1}}} {{\n  return\n}}\n")
else:
    sys.exit(f"unknown kind {kind}")
