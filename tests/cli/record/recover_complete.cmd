# A log that reads to its end needs no recovery; its copy goes.
cp "$TESTDATA/cpython/workload/none.bin" run.bin
printf 'stale' > run.bin.recover
tachyon-record --recover run.bin; echo "exit $?"
ls
