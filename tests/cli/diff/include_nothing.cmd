# --include/--exclude that leave no row of profiles with samples warn
# (exit 0): the report is empty.
cd $TESTDATA/cpython
tachyon-diff --include '^nosuch' workload/none.bin workload/zstd.bin; echo "exit $?"
tachyon-diff --exclude . -F csv workload/none.bin workload/expected.jsonl; echo "exit $?"
