cp "$TESTDATA/bad/bin_trailing.bin" . && tachyon-validate bin_trailing.bin
