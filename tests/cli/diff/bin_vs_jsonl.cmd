cd "$TESTDATA/diff" && tachyon-diff --fail-on-regression 0 --min-delta 0 base.bin base.jsonl
