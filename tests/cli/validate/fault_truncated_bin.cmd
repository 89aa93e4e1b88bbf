# Fault: a binary log cut before its tables (the end is missing). One message, the same in tachyon-conv, tachyon-diff
# and tachyon-validate (tests/cli/faults/same_text.cmd compares them).
cd "$TESTDATA/bad" || exit
tachyon-validate bin_truncated.bin
