cd "$TESTDATA/diff" && tachyon-diff --format markdown --fail-on-regression 1 base.bin regressed.bin
