cp "$TESTDATA/bad/jsonl_two_meta.jsonl" . && tachyon-validate jsonl_two_meta.jsonl
