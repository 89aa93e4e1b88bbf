# Fault: a JSONL export without its end record. One message, the same in tachyon-conv, tachyon-diff
# and tachyon-validate (tests/cli/faults/same_text.cmd compares them).
cd "$TESTDATA/bad" || exit
tachyon-diff -q ../example.bin jsonl_no_end.jsonl
