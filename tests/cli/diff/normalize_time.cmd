cd "$TESTDATA/diff" && tachyon-diff --normalize time --format csv base.bin regressed.bin | cut -d, -f1,7-12,14,15; tachyon-diff --normalize time -n 1 base.jsonl regressed.bin
