tachyon-conv --to bin --compression none "$TESTDATA/cpython/workload/zstd.bin" >out.bin && cmp out.bin "$TESTDATA/cpython/workload/none.bin" && echo "equal to none.bin"
