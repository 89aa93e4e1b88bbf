[ -w /dev/full ] || { echo "/dev/full not available" >&2; exit 77; }
tachyon-conv "$TESTDATA/cpython/workload/none.bin" >/dev/full; echo "exit $?"
tachyon-conv --to bin "$TESTDATA/cpython/workload/none.bin" >/dev/full; echo "exit $?"
tachyon-conv --help >/dev/full; echo "exit $?"
