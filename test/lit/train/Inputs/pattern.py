# pattern.py OUT.npy LENGTH PERIOD VOCAB SEED - writes an int32 [LENGTH] token stream that repeats one
# pattern of PERIOD distinct tokens drawn from [0, VOCAB) (standard library only): within the stream,
# every token determines the next one, so a model can learn it.
import random
import struct
import sys


def main(out, length, period, vocab, seed):
    length, period, vocab = int(length), int(period), int(vocab)
    pattern = random.Random(int(seed)).sample(range(vocab), period)
    tokens = [pattern[i % period] for i in range(length)]
    header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }" % length
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("ascii"))
        f.write(struct.pack("<%di" % length, *tokens))
    print("pattern", " ".join(str(t) for t in pattern))


if __name__ == "__main__":
    main(*sys.argv[1:])
