cp "$TESTDATA/bad/jsonl_mixed_dialect.jsonl" . && tachyon-validate jsonl_mixed_dialect.jsonl
