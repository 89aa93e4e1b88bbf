cp "$TESTDATA/bad/jsonl_missing_field.jsonl" . && tachyon-validate jsonl_missing_field.jsonl
