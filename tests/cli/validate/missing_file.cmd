cp "$TESTDATA/bad/jsonl_total.jsonl" .
tachyon-validate nope.jsonl jsonl_total.jsonl
