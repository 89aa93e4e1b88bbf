cp "$TESTDATA/bad/jsonl_long_line.jsonl" . && tachyon-validate --max-line 4096 jsonl_long_line.jsonl
