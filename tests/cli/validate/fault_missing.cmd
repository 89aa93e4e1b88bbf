# Fault: a file that does not exist. One message, the same in tachyon-conv, tachyon-diff
# and tachyon-validate (tests/cli/faults/same_text.cmd compares them).
cd "$TESTDATA/bad" || exit
tachyon-validate missing.bin
