# A warning fails the file only with --strict.
cp "$TESTDATA/bad/jsonl_no_newline.jsonl" "$TESTDATA/bad/bin_reserved.bin" .
tachyon-validate jsonl_no_newline.jsonl bin_reserved.bin; echo "exit $?"
tachyon-validate --strict jsonl_no_newline.jsonl bin_reserved.bin; echo "exit $?"
tachyon-validate -q jsonl_no_newline.jsonl bin_reserved.bin; echo "exit $?"
