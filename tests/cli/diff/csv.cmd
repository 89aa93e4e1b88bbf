cd "$TESTDATA/diff" && tachyon-diff --format csv base.bin regressed.bin
