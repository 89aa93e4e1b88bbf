cd "$TESTDATA/diff" && tachyon-diff --top 4 base.bin moved.bin
