tachyon-diff nonexistent.bin "$TESTDATA/diff/base.bin"
