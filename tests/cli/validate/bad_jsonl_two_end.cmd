cp "$TESTDATA/bad/jsonl_two_end.jsonl" . && tachyon-validate jsonl_two_end.jsonl
