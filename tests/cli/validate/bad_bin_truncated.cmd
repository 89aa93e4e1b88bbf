cp "$TESTDATA/bad/bin_truncated.bin" . && tachyon-validate bin_truncated.bin
