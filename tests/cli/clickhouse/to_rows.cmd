# --to clickhouse: one JSONEachRow line per (thread, status, stack), each
# input its own run (its fingerprint as run id), labels in command-line
# order, --time or the file's modification time.
cp "$TESTDATA/cpython/single_full/none.bin" single.bin
touch -d @1600000000 single.bin
tachyon-conv --to clickhouse --label service=api --label 'note=a "b"' single.bin
tachyon-conv --to clickhouse -l host=h1 --time 1700000000 single.bin \
    "$TESTDATA/cpython/pop_push/none.bin"
tachyon-conv --to clickhouse --run-id 0123456789ABCDEF0123456789abcdef \
    --time 0 - < single.bin
echo "exit $?"
