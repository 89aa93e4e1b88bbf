cd "$TESTDATA/diff" && tachyon-diff --format json base.bin regressed.bin
