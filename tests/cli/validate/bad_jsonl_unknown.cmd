cp "$TESTDATA/bad/jsonl_unknown.jsonl" . && tachyon-validate -v jsonl_unknown.jsonl
