cd "$TESTDATA/diff" && tachyon-diff --format collapsed-diff base.jsonl regressed.bin
