# loss.py RESULT.npy LO HI [OTHER.npy TOL] - checks that a rank-0 loss lies in [LO, HI] (and within TOL
# of another run's loss).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npyio  # noqa: E402

descr, shape, (loss,) = npyio.read(sys.argv[1])
assert descr == "<f8" and shape == (), (descr, shape)
lo, hi = float(sys.argv[2]), float(sys.argv[3])
if not lo <= loss <= hi:
    sys.exit("loss %r outside [%r, %r]" % (loss, lo, hi))
if len(sys.argv) > 4:
    other = npyio.read(sys.argv[4])[2][0]
    if abs(loss - other) > float(sys.argv[5]):
        sys.exit("loss %r differs from %r by more than %s" % (loss, other, sys.argv[5]))
print("ok loss")
