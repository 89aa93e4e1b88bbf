cp "$TESTDATA/bad/jsonl_not_object.jsonl" . && tachyon-validate jsonl_not_object.jsonl
