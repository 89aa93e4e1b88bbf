cd "$TESTDATA/diff" && tachyon-diff --fail-on-regression 0.5 base.bin base.bin
