# The thread limit as a rule (TV228); without it the same log is valid.
cp "$TESTDATA/cpython/interleaved_threads/none.bin" it.bin
tachyon-validate --max-threads 2 it.bin; echo "limit 2: exit $?"
tachyon-validate it.bin; echo "default: exit $?"
