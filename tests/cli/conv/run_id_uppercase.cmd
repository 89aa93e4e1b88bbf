tachyon-conv --run-id 0123456789ABCDEFabcdef0123456789 "$TESTDATA/cpython/single_full/none.bin" | head -n 1
