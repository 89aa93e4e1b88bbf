# Fault: a killed recording: the header was never written. One message, the same in tachyon-conv, tachyon-diff
# and tachyon-validate (tests/cli/faults/same_text.cmd compares them).
cd "$TESTDATA/bad" || exit
tachyon-conv --to top bin_header_zero.bin
