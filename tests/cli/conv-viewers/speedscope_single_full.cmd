tachyon-conv --to speedscope $TESTDATA/cpython/single_full/none.bin
