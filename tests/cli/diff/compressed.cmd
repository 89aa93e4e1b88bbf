gzip -c "$TESTDATA/diff/base.jsonl" > b.jsonl.gz && zstd -q -c "$TESTDATA/diff/regressed.bin" > r.bin.zst && tachyon-diff --top 2 b.jsonl.gz r.bin.zst
