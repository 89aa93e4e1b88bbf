tachyon-conv -o nodir/out.jsonl "$TESTDATA/cpython/single_full/none.bin"
