# "-" reads stdin; whole-file compression is removed first.
gzip -c "$TESTDATA/cpython/pop_push/expected.v1.jsonl" | tachyon-validate -v -; echo "exit $?"
zstd -q -c "$TESTDATA/cpython/pop_push/zstd.bin" >p.bin.zst && tachyon-validate -v p.bin.zst; echo "exit $?"
gzip -c "$TESTDATA/bad/jsonl_total.jsonl" | tachyon-validate -; echo "exit $?"
cat "$TESTDATA/cpython/pop_push/zstd.bin" | tachyon-validate -v -; echo "exit $?"
