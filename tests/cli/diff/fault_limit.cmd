# Fault: over --max-input-size. One message, the same in tachyon-conv, tachyon-diff
# and tachyon-validate (tests/cli/faults/same_text.cmd compares them).
gzip -c "$TESTDATA/example.bin" >big.bin.gz
tachyon-diff -q --max-input-size 1K "$TESTDATA/example.bin" big.bin.gz
