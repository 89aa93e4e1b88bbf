d=$TESTDATA/cpython/interleaved_threads
xz -c $d/none.bin >in.bin.xz && tachyon-conv --to collapsed in.bin.xz | cmp - $d/expected.collapsed && echo "xz file ok"
gzip -c $d/zstd.bin >in.gz && tachyon-conv --to bin -c none in.gz | cmp - $d/none.bin && echo "gzip file -> bin ok"
