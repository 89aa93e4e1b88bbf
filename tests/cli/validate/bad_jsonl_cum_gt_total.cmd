cp "$TESTDATA/bad/jsonl_cum_gt_total.jsonl" . && tachyon-validate jsonl_cum_gt_total.jsonl
