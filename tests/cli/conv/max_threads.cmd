# --max-threads: a log with more distinct threads than allowed is bad data
# (exit 1), located at the record that names one too many; 0 lifts the
# limit; a value that is not a count is a usage error.
cp "$TESTDATA/cpython/interleaved_threads/none.bin" it.bin; f=it.bin
tachyon-conv --max-threads 1 --to collapsed "$f" >/dev/null; echo "limit 1: exit $?"
tachyon-conv --max-threads 0 --to collapsed "$f" | wc -l; echo "limit 0: exit ${PIPESTATUS[0]}"
tachyon-conv --max-threads 1 --to bin -o out.bin "$f"; echo "bin: exit $?"; ls out.bin 2>/dev/null
tachyon-conv --max-threads -3 "$f"; echo "bad: exit $?"
