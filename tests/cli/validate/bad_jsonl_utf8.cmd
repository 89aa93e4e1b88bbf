cp "$TESTDATA/bad/jsonl_utf8.jsonl" . && tachyon-validate jsonl_utf8.jsonl
