cp "$TESTDATA/bad/jsonl_total.jsonl" . && tachyon-validate jsonl_total.jsonl
