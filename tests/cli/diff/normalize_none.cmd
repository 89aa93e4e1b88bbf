cd "$TESTDATA/diff" && tachyon-diff --normalize none base.bin regressed.bin
