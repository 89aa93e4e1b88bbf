# The thread limit in tachyon-diff: bad data, exit 1.
cp "$TESTDATA/cpython/interleaved_threads/none.bin" it.bin; f=it.bin
tachyon-diff --max-threads 1 "$f" "$f"; echo "exit $?"
