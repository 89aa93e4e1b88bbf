cp "$TESTDATA/bad/jsonl_self_gt_cum.jsonl" . && tachyon-validate jsonl_self_gt_cum.jsonl
