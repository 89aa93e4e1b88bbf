cp "$TESTDATA/bad/jsonl_undef_frame.jsonl" . && tachyon-validate jsonl_undef_frame.jsonl
