cp "$TESTDATA/bad/jsonl_run_id_form.jsonl" . && tachyon-validate jsonl_run_id_form.jsonl
