# timed.py SECONDS COMMAND... - runs COMMAND and fails when it exits non-zero or takes longer than SECONDS
# of wall time (the interpreter's performance gate).
import subprocess
import sys
import time

limit = float(sys.argv[1])
start = time.monotonic()
status = subprocess.call(sys.argv[2:])
elapsed = time.monotonic() - start
if status != 0:
    sys.exit(status)
if elapsed > limit:
    print("too slow: %.2f s > %.2f s" % (elapsed, limit))
    sys.exit(1)
print("ok within %.0f s" % limit)
