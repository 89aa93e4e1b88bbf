cp "$TESTDATA/bad/jsonl_syntax.jsonl" . && tachyon-validate jsonl_syntax.jsonl
