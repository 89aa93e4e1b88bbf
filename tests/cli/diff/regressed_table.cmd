cd "$TESTDATA/diff" && tachyon-diff base.bin regressed.bin
