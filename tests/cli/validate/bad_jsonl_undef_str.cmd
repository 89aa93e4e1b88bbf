cp "$TESTDATA/bad/jsonl_undef_str.jsonl" . && tachyon-validate jsonl_undef_str.jsonl
