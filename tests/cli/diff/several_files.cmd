cd "$TESTDATA/diff" && tachyon-diff --base base.bin --base base.jsonl --new regressed.bin --new regressed.jsonl --top 3
