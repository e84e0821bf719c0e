"""gates.py - every pass/fail threshold of the GPU checks, in one place, each with its reason. They were
written before any GPU run (docs/gpu.md) and are not tuned to make a run pass: a failing gate stays
visible in the table until the program, not the gate, changes.

Precision facts used below: f32 keeps 24 significant bits (unit roundoff u32 = 2^-24 = 6.0e-8); bf16 keeps
8 (u16 = 2^-9 = 2.0e-3, the largest relative error of one rounding to nearest).
"""

# compare, fp32 programs: every result of one update against latch-interp in fp64, relative L2 error
# ||gpu - ref|| / ||ref||. One fp32 op rounds each output once (<= u32) after an fp32 accumulation whose
# error grows like sqrt(K) u32 for K terms (K <= 130 in the op programs: about 7e-7). 1e-5 is about
# 170 u32: room for a few chained roundings and for the GPU's approximate exp/log/rsqrt (a few ulp), but
# a wrong index, a missed element or a skipped tile moves whole elements and fails by orders of magnitude.
COMPARE_FP32_REL_L2 = 1e-5

# compare, bf16 programs (bf16 stores): each bf16 store rounds with relative error <= u16 = 2^-9
# (RMS u16/sqrt(3) = 1.1e-3 for uniformly spread errors); a matmul whose inputs and output are bf16
# sees a few such roundings. 2e-2 is 10 u16: a handful of independent bf16 roundings pass, a wrong
# value does not.
COMPARE_BF16_REL_L2 = 2e-2

# Integer results (topk indices, bucket order and ends) must be identical.

# grad: TinyMoE (bf16 matmul inputs, fp32 everything else) per-parameter gradient relative L2 error
# against fp64 (latch-interp at small sizes, PyTorch fp64 at 2x512). Gradients pass through dozens of
# bf16-rounded matmul inputs in forward and backward; relative errors of a few 1e-3 per rounding
# accumulate in quadrature to about 1e-2 .. 3e-2. 0.08 is the gate the project set for this check.
GRAD_REL_L2 = 0.08

# The loss of the same update against the fp64 loss (TinyMoE, bf16 matmul inputs): like a bf16 result.
GRAD_LOSS_REL = 2e-2

# The PyTorch fp64 reference against latch-interp fp64 at the small size (both fp64, different summation
# orders: differences near 1e-14 relative; routing identical away from ties). 1e-9 leaves five orders of
# magnitude for the condition of the model and still fails on any real difference of semantics.
TORCH_REFERENCE_REL_L2 = 1e-9

# loss100: the loss of every one of 100 updates against latch-interp --emulate=fp32 --train-steps 100,
# |loss_gpu - loss_ref| / |loss_ref|. fp32 programs compute what the reference emulates, up to summation
# order (1e-6 per update); Adam's sign-like steps can amplify such differences over 100 updates, so the
# gate is 2e-3, about three orders above one update's error and far below what a wrong step counter, a
# lost moment or a wrong data window does (the curve then differs by tens of percent).
LOSS100_FP32_REL = 2e-3
# bf16 programs differ from the fp32-emulated reference by their bf16 roundings themselves (u16 = 2e-3
# per stored value, about 1e-2 on the loss after a few layers), and that difference drifts over 100
# updates: 5e-2 is 25 u16.
LOSS100_BF16_REL = 5e-2
# Decision of 2026-12-01 (issue 6, docs/gpu.md "loss100 and chaos"): the premise above, that the difference
# drifts, does not hold for every run. loss100 also runs the program's "one-ulp twin" (the same GPU program
# from the same start, one parameter element one f32 ulp up). On tinymoe-2x512 the twin parted from the
# GPU curve by 0.229 (first over 5e-2 at update 40), as far as the GPU curve from the reference (0.215):
# a per-update comparison there measures the run's sensitivity to any rounding, which no implementation
# but a bitwise copy of the reference's arithmetic can pass. Where the twin itself exceeds the gate, the
# same gate applies to the means of consecutive windows of LOSS100_WINDOW updates (which average the
# chaotic scatter; a wrong step counter, a lost moment or a wrong data window still moves them by tens of
# percent), and the per-update row stays in the table as information. Where the twin stays within the
# gate (every other program so far), the per-update gate applies unchanged. The final run of that day
# failed the windowed gate too (0.0693), with the twin's own windows 0.092 apart: docs/gpu.md says so,
# and the gate was not changed again.
LOSS100_WINDOW = 10

# determinism: two runs of 20 updates from the same seeds give bitwise-identical parameters, m and v and
# identical printed losses (the ABI's static tile assignment has no atomics in the data path).
DETERMINISM_UPDATES = 20

# memcheck: compute-sanitizer --tool memcheck reports no error on one update.
MEMCHECK_MAX_ERRORS = 0

# timing has no gate: it reports the median update time of this many updates and the barrier wait share
# of the last one, next to the PyTorch controls of shared/notes/models.md.
TIMING_UPDATES = 10
PYTORCH_CONTROLS_MS = {
    "tinymoe-2x1024": "PyTorch eager 14.2 ms, CUDA graph 4.82 ms, floor ~0.4-0.8 ms",
    "tinymoe-32x1024": "PyTorch eager 33.9 ms, CUDA graph 31.8 ms, floor ~6 ms",
}


def compare_gate(precision):
    return COMPARE_FP32_REL_L2 if precision == "fp32" else COMPARE_BF16_REL_L2


def loss100_gate(precision):
    return LOSS100_FP32_REL if precision == "fp32" else LOSS100_BF16_REL
