# Inputs whose interval or mode differ from the first one: merged anyway,
# with a warning each (the output keeps the first input's values).
f=$TESTDATA/cpython/single_full/none.bin
python3 - $f <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<Q", d, 20, 500)      # sample interval, us
open("fast.bin", "wb").write(d)
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<I", d, 60, 2)        # profiling config: mode + 1 = cpu
open("cpu.bin", "wb").write(d)
PY
tachyon-conv --to collapsed $f fast.bin cpu.bin; echo "exit $?"
tachyon-conv -q --to collapsed cpu.bin fast.bin; echo "exit $?"
tachyon-conv --run-id 00000000000000000000000000000000 cpu.bin | head -n 1
