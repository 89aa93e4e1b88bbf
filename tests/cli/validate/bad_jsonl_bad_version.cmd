cp "$TESTDATA/bad/jsonl_bad_version.jsonl" . && tachyon-validate jsonl_bad_version.jsonl
