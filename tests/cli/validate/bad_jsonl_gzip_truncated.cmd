cp "$TESTDATA/bad/jsonl_gzip_truncated.jsonl.gz" . && tachyon-validate jsonl_gzip_truncated.jsonl.gz
