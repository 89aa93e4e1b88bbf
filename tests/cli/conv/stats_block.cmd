# Add a 56-byte TACHSTAT block (spec 1.4) before the footer of CPython's
# files, then check that --to bin keeps it: the re-encoded uncompressed file
# must equal the input byte for byte.
python3 - "$TESTDATA/cpython/repeat_rle" <<'PY'
import struct, sys
stats = struct.pack("<ddddII", 2.5, 998.0, 0.25, 1.5, 3, 0) + b"TACHSTAT" + struct.pack("<II", 1, 56)
for name in ("none", "zstd"):
    data = open(f"{sys.argv[1]}/{name}.bin", "rb").read()
    body, footer = data[:-32], bytearray(data[-32:])
    struct.pack_into("<Q", footer, 8, len(data) + len(stats))
    open(f"{name}.stats.bin", "wb").write(body + stats + bytes(footer))
PY
tachyon-conv --to bin none.stats.bin >a.bin && cmp a.bin none.stats.bin && echo "none + stats -> bin: identical"
tachyon-conv --to bin -c none zstd.stats.bin >b.bin && cmp b.bin none.stats.bin && echo "zstd + stats -> none: equals none + stats"
tachyon-conv --to bin -c zstd none.stats.bin | tachyon-conv --to bin -c none - | cmp - none.stats.bin && echo "none + stats -> zstd -> none: identical"
tachyon-conv -v --run-id 00000000000000000000000000000000 none.stats.bin | cmp - "$TESTDATA/cpython/repeat_rle/expected.jsonl" && echo "jsonl unchanged by the block"
