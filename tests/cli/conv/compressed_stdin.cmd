d=$TESTDATA/cpython/suffix_calls; z=00000000000000000000000000000000
gzip -c $d/none.bin | tachyon-conv --run-id $z - | cmp - $d/expected.jsonl && echo "gzip ok"
zstd -q -c $d/none.bin | tachyon-conv --run-id $z - | cmp - $d/expected.jsonl && echo "zstd ok"
xz -c $d/none.bin | tachyon-conv --run-id $z - | cmp - $d/expected.jsonl && echo "xz ok"
bzip2 -c $d/none.bin | tachyon-conv --run-id $z - | cmp - $d/expected.jsonl && echo "bzip2 ok"
gzip -c $d/zstd.hdr-u32.bin | tachyon-conv --to collapsed - | cmp - $d/expected.collapsed && echo "gzip of zstd.hdr-u32 ok"
