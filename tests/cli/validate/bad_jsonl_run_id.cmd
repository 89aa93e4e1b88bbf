cp "$TESTDATA/bad/jsonl_run_id.jsonl" . && tachyon-validate jsonl_run_id.jsonl
