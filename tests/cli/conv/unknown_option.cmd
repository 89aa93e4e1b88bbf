tachyon-conv --frob "$TESTDATA/cpython/single_full/none.bin"
