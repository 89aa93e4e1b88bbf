tachyon-diff -o out.md -F markdown "$TESTDATA/diff/base.bin" "$TESTDATA/diff/base.bin" && head -n 1 out.md; tachyon-diff -o out.md "$TESTDATA/diff/base.bin" "$TESTDATA/diff/base.bin"; echo "exit $?"
