# Fault: a binary log with a bad frame index. One message, the same in tachyon-conv, tachyon-diff
# and tachyon-validate (tests/cli/faults/same_text.cmd compares them).
cd "$TESTDATA/bad" || exit
tachyon-conv --to top bin_frame_index.bin
