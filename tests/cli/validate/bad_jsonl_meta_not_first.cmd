cp "$TESTDATA/bad/jsonl_meta_not_first.jsonl" . && tachyon-validate jsonl_meta_not_first.jsonl
