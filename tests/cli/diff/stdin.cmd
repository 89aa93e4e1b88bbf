cd "$TESTDATA/diff" && tachyon-diff - regressed.bin --top 1 < base.bin
