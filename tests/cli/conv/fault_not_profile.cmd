# Fault: text that is neither format. One message, the same in tachyon-conv, tachyon-diff
# and tachyon-validate (tests/cli/faults/same_text.cmd compares them).
cd "$TESTDATA/bad" || exit
tachyon-conv --to top not_tachyon.txt
