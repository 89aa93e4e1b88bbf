# A COMMAND found but not executable: 126, as a shell says.
cp "$TESTDATA/cpython/workload/none.bin" notexec && chmod 644 notexec
tachyon-record -o x.bin ./notexec
