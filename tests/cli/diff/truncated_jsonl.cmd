head -n 3 "$TESTDATA/diff/base.jsonl" > t.jsonl; tachyon-diff t.jsonl "$TESTDATA/diff/base.bin"
