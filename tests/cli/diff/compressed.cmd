command -v zstd >/dev/null && command -v gzip >/dev/null || { echo "needs gzip and zstd" >&2; exit 77; }
gzip -c "$TESTDATA/diff/base.jsonl" > b.jsonl.gz && zstd -q -c "$TESTDATA/diff/regressed.bin" > r.bin.zst && tachyon-diff --top 2 b.jsonl.gz r.bin.zst
